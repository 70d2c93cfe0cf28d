import { defineConfig } from "vitest/config";
// @ts-expect-error: a plain .mjs script without type declarations.
import { includeOf } from "./scripts/test-runners.mjs";

// Node tests: unit (MSW + loopback), end-to-end (wrangler dev), the conformance suite on Node.
export default defineConfig({
  test: {
    // Which files: scripts/test-runners.mjs (also what `npm test -- <file>` routes by).
    include: includeOf("test:node"),
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
