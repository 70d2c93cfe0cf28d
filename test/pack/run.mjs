// The npm artefact as users get it (`npm run test:pack`): pack the package once, lint the
// tarball (publint, arethetypeswrong), install it into a fresh temporary project, import both
// entry points from plain Node ESM and type-check a consumer file against the published types.
//
// Offline-friendly: the install uses npm's local cache first (`--offline`, then
// `--prefer-offline` if something is missing from it).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = (name) => join(root, "node_modules", ".bin", name);
const manifest = JSON.parse(await readFile(join(root, "package.json"), "utf8"));

/** Runs a command; on failure the error carries its output. */
async function sh(command, args, cwd) {
  try {
    return await run(command, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: process.env });
  } catch (error) {
    const output = `${error.stdout ?? ""}${error.stderr ?? ""}`.trim();
    throw new Error(`${command} ${args.join(" ")} failed:\n${output}`, { cause: error });
  }
}

const results = [];
async function step(name, fn) {
  const started = performance.now();
  try {
    const note = await fn();
    const ms = Math.round(performance.now() - started);
    results.push({ name, ok: true });
    console.log(`  ✓ ${name} (${ms} ms)${note ? ` — ${note}` : ""}`);
  } catch (error) {
    results.push({ name, ok: false });
    console.log(`  ✗ ${name}\n${String(error.message ?? error).replace(/^/gm, "      ")}`);
  }
}

const CONSUMER_MJS = `
import * as core from "stopstream";
import * as relay from "stopstream/hono";

const expected = ["streamChat", "ChatStream", "InterruptedError", "PartialStreamError",
  "TimeoutError", "isInterruptedError"];
for (const name of expected) {
  if (!(name in core)) throw new Error("stopstream does not export " + name);
}
if (typeof relay.createRelay !== "function") throw new Error("stopstream/hono lacks createRelay");
const demo = await import("stopstream/demo");
const demoAnswer = await demo.createDemoRelay({}, { wordDelayMs: 0 }).request("/v1/chat/completions", {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
});
if (!(await demoAnswer.text()).includes("demo")) throw new Error("stopstream/demo: no answer");
// The Durable Object class of resumable streams loads outside workerd too.
if (typeof relay.RelayStream !== "function") throw new Error("stopstream/hono lacks RelayStream");

// Both entry points working together, no network: the relay in front of an upstream answered by
// an injected fetch, called in-process through another.
const UPSTREAM_SSE = 'data: {"choices":[{"index":0,"delta":{"content":"Hello from upstream"},' +
  '"finish_reason":null}]}\\n\\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}' +
  "\\n\\ndata: [DONE]\\n\\n";
const upstream = async () =>
  new Response(UPSTREAM_SSE, { headers: { "content-type": "text/event-stream" } });
const app = relay.createRelay({ upstreams: [{ baseURL: "https://up.invalid/v1" }], fetch: upstream });
const stream = core.streamChat({
  baseURL: "http://relay.invalid/v1",
  body: { model: "demo", messages: [{ role: "user", content: "pack test" }] },
  fetch: (input, init) => app.fetch(new Request(input, init)),
});
let text = "";
for await (const event of stream) if (event.type === "text") text += event.text;
const result = await stream.result;
if (text === "" || result.content !== text) throw new Error("unexpected stream: " + text);

// Anthropic's decoder, one of the package's modules, resolves from the installed dist.
const sse = [
  ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }],
  ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" } }],
  ["message_stop", { type: "message_stop" }],
].map(([name, data]) => "event: " + name + "\\ndata: " + JSON.stringify(data) + "\\n\\n").join("");
const anthropic = await core.streamChat({
  baseURL: "https://provider.invalid/v1",
  protocol: "anthropic-messages",
  body: { model: "m", messages: [] },
  fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }),
}).result;
if (anthropic.content !== "Hi") throw new Error("anthropic-messages: " + anthropic.content);

const aborted = new AbortController();
aborted.abort();
const error = await core.streamChat({
  baseURL: "http://relay.invalid/v1", body: { messages: [] }, signal: aborted.signal,
}).result.catch((e) => e);
if (!core.isInterruptedError(error)) throw new Error("expected InterruptedError, got " + error);
console.log(JSON.stringify({ exports: Object.keys(core).length, chars: text.length }));
`;

// README and docs/runtimes.md: ESM only; from CommonJS, `await import("stopstream")`.
const CONSUMER_CJS = `
(async () => {
  const { streamChat } = await import("stopstream");
  const { createRelay } = await import("stopstream/hono");
  if (typeof streamChat !== "function" || typeof createRelay !== "function") {
    throw new Error("dynamic import from CommonJS lacks streamChat or createRelay");
  }
  const sse = 'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}' +
    "\\n\\ndata: [DONE]\\n\\n";
  const app = createRelay({
    upstreams: [{ baseURL: "https://up.invalid/v1" }],
    fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }),
  });
  const { content } = await streamChat({
    baseURL: "http://relay.invalid/v1",
    body: { model: "demo", messages: [{ role: "user", content: "from CommonJS" }] },
    fetch: (input, init) => app.fetch(new Request(input, init)),
  }).result;
  if (content === "") throw new Error("no answer through the dynamic imports");
  console.log(JSON.stringify({ chars: content.length }));
})().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
`;

const CONSUMER_TS = `
import {
  type ChatResult,
  isPartialStreamError,
  type StreamChatOptions,
  type StreamEvent,
  streamChat,
  TimeoutError,
} from "stopstream";
import { createRelay, type RelayOptions } from "stopstream/hono";
import type { Hono } from "hono";

const options: StreamChatOptions = {
  baseURL: "https://api.example.com/v1",
  body: { model: "m", messages: [] },
  timeouts: { idleMs: 1000 },
};

export async function collect(): Promise<ChatResult> {
  const stream = streamChat(options);
  for await (const event of stream) {
    const e: StreamEvent = event;
    if (e.type === "text") console.log(e.text.toUpperCase());
    if (e.type === "retry") console.log(e.delayMs.toFixed(0));
  }
  try {
    return await stream.result;
  } catch (error) {
    if (isPartialStreamError(error)) return error.partial;
    if (error instanceof TimeoutError) console.log(error.phase);
    throw error;
  }
}

const relayOptions: RelayOptions = { upstreams: [{ baseURL: "https://up.example/v1" }], keys: ["k"] };
export const app: Hono = createRelay(relayOptions);

// The published types are real types, not \`any\`: these must be errors.
// @ts-expect-error baseURL is required
streamChat({ body: {} });
// @ts-expect-error no such event type
export const bad: StreamEvent = { type: "nope" };
`;

const tsconfig = (moduleResolution, module, skipLibCheck) =>
  JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      module,
      moduleResolution,
      lib: ["ES2022", "DOM", "DOM.Iterable"],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck,
    },
    files: ["consumer.ts"],
  });

const work = await mkdtemp(join(tmpdir(), "stopstream-pack-"));
const project = join(work, "consumer");
let tarball = "";
console.log(`test:pack — ${manifest.name}@${manifest.version} (in ${work})`);
try {
  await step("npm pack (runs the build through `prepack`)", async () => {
    const { stdout } = await sh("npm", ["pack", "--json", "--pack-destination", work], root);
    const [info] = JSON.parse(stdout.slice(stdout.search(/^\[/m)));
    tarball = join(work, info.filename);
    const paths = info.files.map((f) => f.path);
    const shipped = [
      "dist/index.js",
      "dist/index.d.ts",
      "dist/relay/index.js",
      "LICENSE",
      "README.md",
    ];
    for (const needed of shipped) {
      if (!paths.includes(needed)) throw new Error(`tarball lacks ${needed}`);
    }
    // The Worker entry and the playground are this repository's app, not the package.
    const stray = paths.filter((p) =>
      /^(test|bench|scripts|\.ci)\/|^(src|dist)\/apps\/(worker|playground)\/|\.test\.|\.tgz$/.test(
        p,
      )
    );
    if (stray.length > 0) throw new Error(`tarball ships ${stray.join(", ")}`);
    return `${info.filename}, ${paths.length} files, ${(info.size / 1024).toFixed(0)} KiB`;
  });
  if (tarball === "") throw new Error("no tarball");

  await step("publint --strict on the tarball", async () => {
    const { stdout } = await sh(bin("publint"), ["run", tarball, "--strict"], root);
    if (!/All good/.test(stdout)) throw new Error(stdout);
  });

  // esm-only: the package is ESM by design (`type: module`, no `require` condition), so
  // CommonJS `require` and node10 resolution are out of scope; everything else must be green.
  await step("attw --profile esm-only on the tarball", async () => {
    await sh(bin("attw"), [tarball, "--profile", "esm-only", "--format", "table-flipped"], root);
  });

  // As a user installs it: scripts allowed, warnings shown. A lifecycle script in the tarball's
  // package.json (`prepare`, `postinstall`…) makes npm warn that it was not run.
  await step("install the tarball into a fresh project, with no warning", async () => {
    await sh("mkdir", ["-p", project]);
    await writeFile(
      join(project, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    const args = [
      "install",
      tarball,
      `hono@${manifest.devDependencies.hono}`,
      "--no-audit",
      "--no-fund",
    ];
    let installed;
    let how = "from the npm cache (--offline)";
    try {
      installed = await sh("npm", [...args, "--offline"], project);
    } catch {
      installed = await sh("npm", [...args, "--prefer-offline"], project);
      how = "with --prefer-offline (the cache lacked something)";
    }
    const warnings = installed.stderr.split("\n").filter((line) => /^npm warn/i.test(line));
    if (warnings.length > 0) throw new Error(`npm install warned:\n${warnings.join("\n")}`);
    return how;
  });

  await step("import `stopstream` and `stopstream/hono` from plain Node ESM", async () => {
    await writeFile(join(project, "consumer.mjs"), CONSUMER_MJS);
    const { stdout } = await sh(process.execPath, ["consumer.mjs"], project);
    return stdout.trim();
  });

  await step('`await import("stopstream")` from CommonJS', async () => {
    await writeFile(join(project, "consumer.cjs"), CONSUMER_CJS);
    const { stdout } = await sh(process.execPath, ["consumer.cjs"], project);
    return stdout.trim();
  });

  await writeFile(join(project, "consumer.ts"), CONSUMER_TS);
  // Once with every .d.ts checked (ours must be valid on their own), once as bundler users
  // usually configure it (skipping library checks, as our dependencies' are not ours to fix).
  const configs = [["NodeNext", "NodeNext", false], ["Bundler", "ESNext", true]];
  for (const [resolution, module, skipLibCheck] of configs) {
    await step(`tsc: consumer.ts against the published types (${resolution})`, async () => {
      const file = `tsconfig.${resolution.toLowerCase()}.json`;
      await writeFile(join(project, file), tsconfig(resolution, module, skipLibCheck));
      await sh(
        process.execPath,
        [join(root, "node_modules/typescript/bin/tsc"), "-p", file],
        project,
      );
    });
  }
} finally {
  await rm(work, { recursive: true, force: true });
}

const failed = results.filter((r) => !r.ok).length;
console.log(`${results.length - failed} passed, ${failed} failed`);
process.exitCode = failed > 0 || results.length === 0 ? 1 : 0;
