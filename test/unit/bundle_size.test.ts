/**
 * The core stays small for browsers and edge bundles: everything `mod.ts` loads, bundled and
 * minified into one file (esbuild, ESM, browser platform), must stay within CORE_GZIP_LIMIT bytes
 * of gzip. The failure names the largest modules, so whoever crosses the line sees where the
 * bytes are.
 */

import { describe, expect, test } from "vitest";
import {
  BUNDLES,
  CORE_GZIP_LIMIT,
  measureBundle,
  overLimit,
  // @ts-expect-error: a plain .mjs script without type declarations.
} from "../../scripts/bundle-size.mjs";

interface BundleReport {
  entry: string;
  files: number;
  raw: number;
  gzip: number;
  brotli: number;
  modules: Array<{ path: string; bytes: number }>;
}

const measure = measureBundle as (bundle: unknown) => Promise<BundleReport>;
const verdict = overLimit as (report: BundleReport, limit: number) => string | undefined;
const bundles = BUNDLES as Array<{ name: string; entry?: string }>;
const core = bundles.find((b) => b.entry === "mod.ts");
const streamChatOnly = bundles.find((b) => b.name === "streamChat, openai-chat only");

describe("bundle size", () => {
  test(`everything mod.ts loads (minified, one file) is at most ${CORE_GZIP_LIMIT} bytes of gzip`, async () => {
    const report = await measure(core);
    expect(report.files).toBe(1);
    expect(report.raw).toBeGreaterThan(report.gzip);
    expect(report.gzip, verdict(report, CORE_GZIP_LIMIT as number)).toBeLessThanOrEqual(
      CORE_GZIP_LIMIT as number,
    );
  });

  test("the core holds all three protocols, resumable streams and the non-streaming fallback", async () => {
    const paths = (await measure(core)).modules.map((m) => m.path);
    for (
      const path of [
        "src/protocols/openai_chat.ts",
        "src/protocols/anthropic_messages.ts",
        "src/protocols/openai_responses.ts",
        "src/client/resume.ts",
        "src/client/non_streaming.ts",
        "eventsource-parser",
      ]
    ) expect(paths).toContain(path);
  });

  test("an app that imports only streamChat is measured, and is no larger than the core", async () => {
    const app = await measure(streamChatOnly);
    const whole = await measure(core);
    expect(app.modules.map((m) => m.path)).toContain("src/client/stream_chat.ts");
    expect(app.gzip).toBeGreaterThan(0);
    expect(app.gzip).toBeLessThanOrEqual(whole.gzip);
  });

  test("over the limit, the failure names the size, the excess and the largest modules", async () => {
    const report = await measure(core);
    const limit = report.gzip - 100;
    const message = verdict(report, limit);
    expect(message).toContain(`${report.gzip.toLocaleString("en")} B gzip`);
    expect(message).toContain("100 B over");
    const largest = report.modules[0]!;
    expect(message).toContain(`${largest.path} ${largest.bytes.toLocaleString("en")}`);
    expect(verdict(report, report.gzip)).toBeUndefined();
  });
});
