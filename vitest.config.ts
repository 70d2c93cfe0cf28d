import { defineConfig } from "vitest/config";
// @ts-expect-error: a plain .mjs script without type declarations.
import { includeOf } from "./scripts/test-runners.mjs";
import { chooseSeed } from "./test/support/seed.ts";

// Node tests: unit (MSW + loopback), end-to-end (wrangler dev), the conformance suite on Node.
export default defineConfig({
  test: {
    // Which files: scripts/test-runners.mjs (also what `npm test -- <file>` routes by).
    include: includeOf("test:node"),
    // One seed for every property test and fuzz of the run (test/support/seed.ts).
    provide: { seed: chooseSeed(process.env) },
    environment: "node",
    testTimeout: 20_000,
    // The relay's call log, a line per call: wanted in production, noise in a test run (a test
    // that asserts it spies on console.log, which sees it first).
    onConsoleLog: (log) => !log.startsWith('{"message":"stopstream.call"'),
    hookTimeout: 60_000,
  },
});
