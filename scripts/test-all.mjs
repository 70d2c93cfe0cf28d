// `npm test`: every check, in order, each as its own npm script; then a summary table, the
// runtimes report (.tmp/runtimes.json, rendered into the README by runtimes-table.mjs), and a
// non-zero exit if anything failed. A later step runs even when an earlier one failed, so one
// run shows every problem.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const hasChromium = existsSync(chromiumPath);

/** The parts of `npm test`, in the order they run. */
const STEPS = [
  { script: "lint", what: "deno lint + deno fmt --check" },
  { script: "typecheck", what: "tsc: src, then the tests" },
  { script: "build", what: "tsc → dist/ (ESM + .d.ts + maps)" },
  { script: "test:node", what: "vitest: unit, e2e, conformance on Node" },
  { script: "test:workers", what: "vitest-pool-workers: relay + conformance in workerd" },
  { script: "test:deno", what: "deno test: conformance on Deno" },
  { script: "test:bun", what: "bun test: conformance on Bun" },
  { script: "test:browser", what: "vitest + playwright-core: headless Chromium" },
  { script: "test:pack", what: "npm pack → publint, attw, install, import, tsc" },
  { script: "test:jsr", what: "deno check + deno publish --dry-run" },
];

function runStep(script) {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], { cwd: root, stdio: "inherit" });
    child.on("error", () => resolve(1));
    child.on("close", (code, signal) => resolve(signal === null ? code : 1));
  });
}

const results = [];
for (const { script, what } of STEPS) {
  console.log(`\n━━━ npm run ${script} — ${what}`);
  const started = performance.now();
  const code = await runStep(script);
  const seconds = (performance.now() - started) / 1000;
  let status = code === 0 ? "pass" : "fail";
  if (script === "test:browser" && !hasChromium && code === 0) status = "skipped";
  results.push({ script, what, status, seconds, code });
}

// ---- runtimes report: what actually ran, with which versions ----

function firstLine(command, args) {
  const out = spawnSync(command, args, { cwd: root, encoding: "utf8" });
  return out.status === 0 ? out.stdout.split("\n")[0].trim() : "unknown";
}

function packageVersion(name) {
  try {
    return JSON.parse(readFileSync(`${root}node_modules/${name}/package.json`, "utf8")).version;
  } catch {
    return "unknown";
  }
}

const statusOf = (script) => results.find((r) => r.script === script)?.status ?? "not run";
const bin = (name) => `${root}node_modules/.bin/${name}`;
const compatDate = /compatibility_date\s*=\s*"([^"]+)"/.exec(
  existsSync(`${root}wrangler.toml`) ? readFileSync(`${root}wrangler.toml`, "utf8") : "",
)?.[1];

const runtimes = [
  {
    runtime: "Node.js",
    version: process.version.slice(1),
    how: "vitest; fault server on node:http (127.0.0.1)",
    status: statusOf("test:node"),
  },
  {
    runtime: "Deno",
    version: firstLine(bin("deno"), ["--version"]).replace(/^deno\s+/, "").split(" ")[0],
    how: 'deno test; imports "@stopstream/stopstream" via deno.json; fault server on Deno.serve',
    status: statusOf("test:deno"),
  },
  {
    runtime: "Bun",
    version: firstLine(bin("bun"), ["--version"]),
    how: "bun test; fault server on Bun.serve",
    status: statusOf("test:bun"),
  },
  {
    runtime: "Cloudflare Workers (workerd)",
    version: `${packageVersion("workerd")}${compatDate ? ` (compat date ${compatDate})` : ""}`,
    how: `@cloudflare/vitest-pool-workers ${
      packageVersion("@cloudflare/vitest-pool-workers")
    }; fault server over loopback TCP`,
    status: statusOf("test:workers"),
  },
  {
    runtime: "Chromium (browser)",
    version: hasChromium
      ? firstLine(chromiumPath, ["--version"]).replace(/^Chromium\s+/, "").split(" ")[0]
      : "not installed",
    how: `headless, playwright-core ${
      packageVersion("playwright-core")
    }; esbuild ESM bundle; cross-origin fault server (CORS)`,
    status: statusOf("test:browser"),
  },
];
mkdirSync(`${root}.tmp`, { recursive: true });
writeFileSync(
  `${root}.tmp/runtimes.json`,
  `${JSON.stringify({ generatedAt: new Date().toISOString(), runtimes }, null, 2)}\n`,
);

// ---- summary ----

const pad = (text, width) => String(text).padEnd(width);
const mark = { pass: "✓ pass", fail: "✗ FAIL", skipped: "- SKIPPED" };
const width = Math.max(...results.map((r) => r.script.length));
console.log("\n━━━ npm test summary");
console.log(`${pad("step", width)}  ${pad("result", 10)}  ${pad("time", 7)}  what`);
for (const r of results) {
  const time = `${r.seconds.toFixed(1)}s`;
  console.log(`${pad(r.script, width)}  ${pad(mark[r.status], 10)}  ${pad(time, 7)}  ${r.what}`);
}
console.log("\nRuntimes (.tmp/runtimes.json; README table: node scripts/runtimes-table.mjs):");
for (const r of runtimes) console.log(`  ${pad(r.runtime, 29)} ${pad(r.version, 34)} ${r.status}`);

if (!hasChromium) {
  const bar = "!".repeat(78);
  console.log(`\n${bar}`);
  console.log("!!! THE BROWSER CHECK WAS SKIPPED: no Chromium at " + chromiumPath);
  console.log("!!! The conformance suite did NOT run in a browser on this machine.");
  console.log("!!! Install it with:  apt-get update && apt-get install -y chromium");
  console.log("!!! (or set CHROMIUM_PATH to a Chromium binary), then run npm test again.");
  console.log(bar);
}

const count = (status) => results.filter((r) => r.status === status).length;
const failed = count("fail");
if (failed > 0) {
  const names = results.filter((r) => r.status === "fail").map((r) => r.script);
  console.log(`\nFAILED: ${names.join(", ")}`);
}
console.log(`\nsteps: ${count("pass")} passed, ${failed} failed, ${count("skipped")} skipped`);
process.exitCode = failed > 0 ? 1 : 0;
