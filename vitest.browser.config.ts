import { defineConfig } from "vitest/config";
// @ts-expect-error: a plain .mjs script without type declarations.
import { includeOf } from "./scripts/test-runners.mjs";

// Real-browser checks: headless Chromium driven by playwright-core from Node.
export default defineConfig({
  test: {
    // Which files: scripts/test-runners.mjs (also what `npm test -- <file>` routes by).
    include: includeOf("test:browser"),
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
