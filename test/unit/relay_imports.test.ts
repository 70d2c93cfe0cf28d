// `stopstream/hono` exports the Durable Object class of resumable streams, and still loads
// outside workerd: RelayStream imports nothing from `cloudflare:workers` (test/pack checks the
// npm tarball under Node the same way).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const PROGRAM = 'const m = await import("./hono.ts"); ' +
  "console.log(typeof m.RelayStream, typeof m.createRelay, String(m.RelayStream).slice(0, 17));";

test.each([
  ["deno", ["eval", PROGRAM]],
  ["bun", ["-e", PROGRAM]],
])("%s imports stopstream/hono, RelayStream included", (runtime, args) => {
  const run = spawnSync(`${root}node_modules/.bin/${runtime}`, args, {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(run.stderr).toBe("");
  expect(run.stdout.trim()).toBe("function function class RelayStream");
});

test("node imports stopstream/hono, RelayStream included", async () => {
  const relay = await import("../../hono.ts");
  expect(String(relay.RelayStream).startsWith("class RelayStream")).toBe(true);
  expect(typeof relay.createRelay).toBe("function");
});
