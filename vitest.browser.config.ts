import { defineConfig } from "vitest/config";

// Real-browser checks: headless Chromium driven by playwright-core from Node.
export default defineConfig({
  test: {
    include: ["test/browser/**/*.test.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
