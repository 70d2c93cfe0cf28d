/**
 * The core stays small for browsers and edge bundles: `mod.ts` bundled and minified (esbuild,
 * ESM, browser platform) must stay within CORE_GZIP_LIMIT bytes of gzip. The failure names the
 * largest modules, so whoever crosses the line sees where the bytes are.
 */

import { describe, expect, test } from "vitest";
import {
  BUNDLES,
  CORE_GZIP_RATCHET,
  measureBundle,
  overLimit,
  // @ts-expect-error: a plain .mjs script without type declarations.
} from "../../scripts/bundle-size.mjs";

interface BundleReport {
  entry: string;
  raw: number;
  gzip: number;
  brotli: number;
  modules: Array<{ path: string; bytes: number }>;
}

const measure = measureBundle as (bundle: unknown) => Promise<BundleReport>;
const verdict = overLimit as (report: BundleReport, limit: number) => string | undefined;
const core = (BUNDLES as Array<{ entry?: string }>).find((b) => b.entry === "mod.ts");

describe("bundle size", () => {
  // The budget is CORE_GZIP_LIMIT (15,000 B, reported by `npm run bench`); until the core fits it
  // again, this holds the line at CORE_GZIP_RATCHET so it cannot grow further.
  test(`the core (mod.ts, minified) is at most ${CORE_GZIP_RATCHET} bytes of gzip`, async () => {
    const report = await measure(core);
    expect(report.raw).toBeGreaterThan(report.gzip);
    expect(report.gzip, verdict(report, CORE_GZIP_RATCHET as number)).toBeLessThanOrEqual(
      CORE_GZIP_RATCHET as number,
    );
  });

  test("over the limit, the failure names the size, the excess and the largest modules", async () => {
    const report = await measure(core);
    const limit = report.gzip - 100;
    const message = verdict(report, limit);
    expect(message).toContain(`${report.gzip.toLocaleString("en")} B gzip`);
    expect(message).toContain("100 B over");
    const [largest] = report.modules;
    expect(message).toContain(`${largest!.path} ${largest!.bytes.toLocaleString("en")}`);
    expect(report.modules.map((m) => m.path)).toContain("src/stream_chat.ts");
    expect(report.modules.map((m) => m.path)).toContain("eventsource-parser");
    expect(verdict(report, report.gzip)).toBeUndefined();
  });
});
