/**
 * The core stays small for browsers and edge bundles: `mod.ts` bundled and minified (esbuild with
 * code splitting, ESM, browser platform), what every app loads of it must stay within
 * CORE_GZIP_LIMIT bytes of gzip, in one file. The failure names the largest modules, so whoever
 * crosses the line sees where the bytes are.
 */

import { describe, expect, test } from "vitest";
import {
  BUNDLES,
  CORE_GZIP_LIMIT,
  measureBundle,
  overLimit,
  // @ts-expect-error: a plain .mjs script without type declarations.
} from "../../scripts/bundle-size.mjs";

interface Weight {
  files: number;
  raw: number;
  gzip: number;
  brotli: number;
}

interface BundleReport extends Weight {
  entry: string;
  lazy: Array<Weight & { module: string }>;
  all: Weight;
  modules: Array<{ path: string; bytes: number; lazy?: string }>;
}

const measure = measureBundle as (bundle: unknown) => Promise<BundleReport>;
const verdict = overLimit as (report: BundleReport, limit: number) => string | undefined;
const core = (BUNDLES as Array<{ entry?: string }>).find((b) => b.entry === "mod.ts");
/** The modules loaded on first use, each with the chunks only it needs. */
const LAZY = [
  "src/protocols/anthropic_decoder.ts",
  "src/protocols/openai_responses_decoder.ts",
  "src/client/resume.ts",
  "src/client/non_streaming.ts",
];

describe("bundle size", () => {
  test(`what every app loads of the core (mod.ts, minified) is at most ${CORE_GZIP_LIMIT} bytes of gzip`, async () => {
    const report = await measure(core);
    expect(report.raw).toBeGreaterThan(report.gzip);
    expect(report.gzip, verdict(report, CORE_GZIP_LIMIT as number)).toBeLessThanOrEqual(
      CORE_GZIP_LIMIT as number,
    );
  });

  test("an openai-chat app loads neither other protocol's decoder nor the resume client, and the entry is one file", async () => {
    const report = await measure(core);
    const lazy = (path: string) => report.modules.find((m) => m.path === path)?.lazy;
    for (const path of LAZY) {
      expect(lazy(path)).toBe(path);
      const total = report.lazy.find((l) => l.module === path)!;
      expect(total.gzip).toBeGreaterThan(report.gzip);
    }
    for (const path of ["src/protocols/anthropic_output.ts", "src/protocols/anthropic_wire.ts"]) {
      expect(lazy(path)).toBe("src/protocols/anthropic_decoder.ts");
    }
    for (
      const path of [
        "src/protocols/openai_chat.ts",
        "src/client/resumable.ts",
        "src/client/core_kit.ts",
        "src/client/streaming_refused.ts",
      ]
    ) {
      expect(lazy(path)).toBeUndefined();
    }
    // One file: a lazy module that imported a value from the core would make the bundler split
    // what both reach into a second file up front (src/core_kit.ts says what that costs).
    expect(report.files).toBe(1);
    expect(report.all.gzip).toBeGreaterThan(Math.max(...report.lazy.map((l) => l.gzip)));
  });

  test("over the limit, the failure names the size, the excess and the largest modules", async () => {
    const report = await measure(core);
    const limit = report.gzip - 100;
    const message = verdict(report, limit);
    expect(message).toContain(`${report.gzip.toLocaleString("en")} B gzip`);
    expect(message).toContain("100 B over");
    // The largest module in the entry's files: a lazily loaded one is not what every app loads.
    const largest = report.modules.find((m) => m.lazy === undefined);
    expect(message).toContain(`${largest!.path} ${largest!.bytes.toLocaleString("en")}`);
    expect(message).not.toContain("src/protocols/anthropic_decoder.ts");
    expect(report.modules.map((m) => m.path)).toContain("src/client/stream_chat.ts");
    expect(report.modules.map((m) => m.path)).toContain("eventsource-parser");
    expect(verdict(report, report.gzip)).toBeUndefined();
  });
});
