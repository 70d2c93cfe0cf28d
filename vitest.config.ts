import { defineConfig } from "vitest/config";

// Node tests: unit (MSW + loopback), end-to-end (wrangler dev), the conformance suite on Node.
export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts", "test/e2e/**/*.test.ts", "test/conformance/node.test.ts"],
    environment: "node",
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
