// The TypeScript examples for Node and Workers also type-check, strictly, against the public
// API (examples.test.ts runs them; a type error there would only show as a confusing runtime
// failure, or not at all). `stopstream` and `stopstream/hono` map to this repository's entry
// points. Deno examples are type-checked by `deno run --check` when they run.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { expect, test } from "vitest";
import { ROOT } from "./bundle.ts";
import { collectExamples } from "./examples.ts";

/** `cloudflare:workers` as `wrangler types` would declare it for the examples' bindings. */
const WORKERS_MODULE = `declare module "cloudflare:workers" {
  export const env: {
    OPENAI_API_KEY: string;
    ANTHROPIC_API_KEY: string;
    RELAY_KEY: string;
    STREAMS: import("stopstream/hono").RelayStreamNamespace;
  };
}
`;

test("the TypeScript examples for Node and Workers type-check against the public API", () => {
  const typed = collectExamples(ROOT).examples.filter((e) =>
    e.info.startsWith("ts") && (e.runtime === "node" || e.runtime === "worker")
  );
  expect(typed.length).toBeGreaterThan(5);
  const dir = `${ROOT}.tmp/docs-typecheck/`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const example of typed) {
    // `export {}` makes each file a module of its own (top-level await, no shared names).
    writeFileSync(`${dir}${example.id}.ts`, `${example.source}\nexport {};\n`);
  }
  writeFileSync(`${dir}cloudflare_workers.d.ts`, WORKERS_MODULE);
  writeFileSync(
    `${dir}tsconfig.json`,
    JSON.stringify({
      extends: "../../tsconfig.json",
      compilerOptions: {
        noEmit: true,
        types: ["node"],
        baseUrl: "../..",
        paths: {
          "stopstream": ["mod.ts"],
          "stopstream/hono": ["hono.ts"],
          "stopstream/demo": ["demo.ts"],
        },
      },
      include: ["./*.ts", "../../src/apps/worker/text_modules.d.ts"],
    }),
  );
  const tsc = spawnSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, "-p", dir], {
    encoding: "utf8",
  });
  // tsc names the file (the example's id: document and line) and the position in the example.
  expect(tsc.stdout + tsc.stderr).toBe("");
  expect(tsc.status).toBe(0);
}, 120_000);
