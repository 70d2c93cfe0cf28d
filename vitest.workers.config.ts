import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig, type Plugin } from "vitest/config";
// @ts-expect-error: a plain .mjs build script without type declarations.
import { bundleBrowserClient } from "./scripts/build-browser-client.mjs";
// @ts-expect-error: a plain .mjs script without type declarations.
import { includeOf } from "./scripts/test-runners.mjs";
import { chooseSeed } from "./test/support/seed.ts";

// Wrangler embeds `*.txt` imports as strings; Vite does not, and the generated browser bundle
// may not exist yet. This plugin serves it from a fresh in-memory build instead.
function browserClientModule(): Plugin {
  const id = "\0stopstream-browser-client";
  return {
    name: "stopstream-browser-client",
    enforce: "pre",
    resolveId: (source) => (source.endsWith("stopstream.browser.js.txt") ? id : undefined),
    load: async (loaded) =>
      loaded === id ? `export default ${JSON.stringify(await bundleBrowserClient())};` : undefined,
  };
}

// The relay in workerd, through @cloudflare/vitest-pool-workers (`npm run test:workers`).
export default defineConfig({
  plugins: [
    browserClientModule(),
    cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } }),
  ],
  test: {
    // Which files: scripts/test-runners.mjs (also what `npm test -- <file>` routes by).
    include: includeOf("test:workers"),
    // One seed for every fuzz of the run, chosen here: workerd cannot read the environment
    // (test/support/seed.ts).
    provide: { seed: chooseSeed(process.env) },
    // The loopback fault server for the conformance suite (test/workers/conformance.test.ts),
    // and a filter for workerd's log of the connections that suite cuts on purpose.
    globalSetup: [
      "./test/workers/quiet_workerd.global.ts",
      "./test/workers/fault_server.global.ts",
    ],
    testTimeout: 15_000,
    // The relay's call log, a line per call: wanted in production, noise in a test run (a test
    // that asserts it spies on console.log, which sees it first).
    onConsoleLog: (log) => !log.startsWith('{"message":"stopstream.call"'),
  },
});
