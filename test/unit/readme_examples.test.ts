// The README's quick starts are what users copy first: they must compile against the real
// public API (names are a contract). Each complete example is extracted and type-checked with
// `stopstream` and `stopstream/hono` mapped to this repository's entry points.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const readme = readFileSync(`${root}README.md`, "utf8");
const relayDoc = readFileSync(`${root}docs/relay.md`, "utf8");

/** The first ```ts block after `heading`. */
function exampleAfter(heading: string, doc = readme): string {
  const at = doc.indexOf(heading);
  if (at === -1) throw new Error(`README has no heading ${heading}`);
  const block = /```ts[^\n]*\n([\s\S]*?)```/.exec(doc.slice(at));
  if (block === null) throw new Error(`no ts block after ${heading}`);
  return block[1]!;
}

const EXAMPLES = {
  "node_quick_start.ts": exampleAfter("## Quick start (Node, Bun)"),
  "workers_quick_start.ts": exampleAfter("## Quick start (Cloudflare Workers)"),
  "relay_in_your_worker.ts": exampleAfter("## In your own Worker", relayDoc),
};

test("the README's quick starts type-check against the public API", () => {
  const dir = `${root}.tmp/readme-examples/`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, source] of Object.entries(EXAMPLES)) {
    writeFileSync(`${dir}${name}`, `${source}\nexport {};\n`);
  }
  writeFileSync(
    `${dir}cloudflare_workers.d.ts`,
    'declare module "cloudflare:workers" {\n  export const env: { OPENAI_API_KEY: string; ANTHROPIC_API_KEY: string; RELAY_KEY: string };\n}\n',
  );
  writeFileSync(
    `${dir}tsconfig.json`,
    JSON.stringify({
      extends: "../../tsconfig.json",
      compilerOptions: {
        noEmit: true,
        types: ["node"],
        baseUrl: "../..",
        paths: { "stopstream": ["mod.ts"], "stopstream/hono": ["hono.ts"] },
      },
      include: ["./*.ts", "../../src/relay/text_modules.d.ts"],
    }),
  );
  const tsc = spawnSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", dir], {
    encoding: "utf8",
  });
  expect(tsc.stdout + tsc.stderr).toBe("");
  expect(tsc.status).toBe(0);
}, 60_000);

test("the examples really use the names they document", () => {
  expect(EXAMPLES["node_quick_start.ts"]).toContain("streamChat(");
  expect(EXAMPLES["node_quick_start.ts"]).toContain("AbortController");
  expect(EXAMPLES["relay_in_your_worker.ts"]).toContain("createRelay(");
});
