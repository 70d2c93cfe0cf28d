import { defineConfig } from "vitest/config";
// @ts-expect-error: a plain .mjs script without type declarations.
import { includeOf } from "./scripts/test-runners.mjs";

// The code examples of README.md and docs/, each run in its own runtime (test/docs/).
export default defineConfig({
  test: {
    // Which files: scripts/test-runners.mjs (also what `npm test -- <file>` routes by).
    include: includeOf("test:docs"),
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
