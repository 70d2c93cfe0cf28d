// `npm test`: every check, in order, each as its own npm script; then a summary table, the
// runtimes report (.tmp/runtimes.json, rendered into docs/runtimes.md by runtimes-table.mjs),
// and a non-zero exit if anything failed. A later step runs even when an earlier one failed, so
// one run shows every problem.
//
// `npm test -- <file or pattern>…` runs only the runners that own matching test files, with that
// filter (see scripts/test-runners.mjs), and fails when nothing matches: it never quietly runs
// everything instead.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isCI, selectSteps, stepStatus, usage } from "./test-runners.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const hasChromium = existsSync(chromiumPath);
const ci = isCI(process.env);

const REPORTS = ".tmp/reports";
const vitestJSON = (name) => [
  "--reporter=default",
  "--reporter=json",
  `--outputFile.json=${REPORTS}/${name}.json`,
];

/**
 * The parts of `npm test`, in the order they run. `args` go to the script after `--`: machine
 * reports of the conformance runs, so the runtimes table counts the suite's own cases.
 */
const STEPS = [
  { script: "lint", what: "deno lint + deno fmt --check + deno doc --lint (JSDoc)" },
  { script: "typecheck", what: "tsc: src, then the tests" },
  { script: "build", what: "tsc → dist/ (ESM + .d.ts + maps)" },
  { script: "test:node", what: "vitest: unit, e2e, conformance on Node", args: vitestJSON("node") },
  {
    script: "test:workers",
    what: "vitest-pool-workers: relay + conformance in workerd",
    args: vitestJSON("workers"),
  },
  {
    script: "test:deno",
    what: "deno test: conformance on Deno",
    args: [`--junit-path=${REPORTS}/deno.xml`],
  },
  {
    script: "test:bun",
    what: "bun test: conformance on Bun",
    args: ["--reporter=junit", `--reporter-outfile=${REPORTS}/bun.xml`],
  },
  {
    script: "test:browser",
    what: "vitest + playwright-core: headless Chromium",
    args: vitestJSON("browser"),
  },
  {
    script: "test:docs",
    what: "every example in README.md and docs/, in Node, Deno, workerd, Chromium, bash",
  },
  { script: "test:pack", what: "npm pack → publint, attw, install, import, tsc" },
  { script: "test:jsr", what: "deno check + deno publish --dry-run (LICENSE, README included)" },
  {
    script: "test:deploy",
    what: "wrangler deploy --dry-run: the Worker bundles",
    // Warnings and errors only: no banner, update notice, build line or bindings table.
    env: { WRANGLER_LOG: "warn", WRANGLER_SEND_METRICS: "false" },
  },
];

function runStep(script, args = [], env = {}) {
  return new Promise((resolve) => {
    const argv = ["run", "--silent", script, ...(args.length > 0 ? ["--", ...args] : [])];
    const child = spawn("npm", argv, {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, ...env },
    });
    child.on("error", () => resolve(1));
    child.on("close", (code, signal) => resolve(signal === null ? code : 1));
  });
}

/** Says, loudly, that the browser checks did not run and how to make them (none with Chromium). */
function printChromiumNotice() {
  if (hasChromium) return;
  const bar = "!".repeat(78);
  console.log(`\n${bar}`);
  if (ci) {
    console.log(
      "!!! THE BROWSER CHECK FAILED: CI is set and there is no Chromium at " + chromiumPath,
    );
    console.log(
      "!!! CI must run the browser checks (.ci/run installs Chromium when it is missing).",
    );
  } else {
    console.log("!!! THE BROWSER CHECK WAS SKIPPED: no Chromium at " + chromiumPath);
    console.log("!!! The conformance suite did NOT run in a browser on this machine.");
  }
  console.log("!!! Install it with:  apt-get update && apt-get install -y chromium");
  console.log("!!! (or set CHROMIUM_PATH to a Chromium binary), then run npm test again.");
  console.log(bar);
}

const pad = (text, width) => String(text).padEnd(width);
const mark = { pass: "✓ pass", fail: "✗ FAIL", skipped: "- SKIPPED" };

function printSummary(results) {
  const width = Math.max(...results.map((r) => r.script.length));
  console.log("\n━━━ npm test summary");
  console.log(`${pad("step", width)}  ${pad("result", 10)}  ${pad("time", 7)}  what`);
  for (const r of results) {
    const time = `${r.seconds.toFixed(1)}s`;
    console.log(`${pad(r.script, width)}  ${pad(mark[r.status], 10)}  ${pad(time, 7)}  ${r.what}`);
  }
}

/** `npm test -- <args>`: the selected runners only; exits with their result. */
async function runSelected(argv) {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(usage());
    process.exit(0);
  }
  const dryRun = argv.includes("--dry-run");
  const selection = selectSteps(argv.filter((a) => a !== "--dry-run"), { root });
  if (selection.error !== undefined) {
    console.error(`npm test: ${selection.error}\n\n${usage()}`);
    process.exit(1);
  }
  const results = [];
  for (const { script, args } of selection.steps) {
    const command = `npm run ${script}${args.length > 0 ? ` -- ${args.join(" ")}` : ""}`;
    if (dryRun) {
      console.log(command);
      continue;
    }
    console.log(`\n━━━ ${command}`);
    const started = performance.now();
    const code = await runStep(script, args);
    const seconds = (performance.now() - started) / 1000;
    const status = stepStatus(script, code, { hasChromium, ci });
    results.push({ script, what: args.join(" "), status, seconds });
  }
  if (dryRun) process.exit(0);
  printSummary(results);
  if (results.some((r) => r.script === "test:browser")) printChromiumNotice();
  process.exit(results.some((r) => r.status === "fail") ? 1 : 0);
}

const argv = process.argv.slice(2);
if (argv.length > 0) await runSelected(argv);

rmSync(`${root}${REPORTS}`, { recursive: true, force: true });
mkdirSync(`${root}${REPORTS}`, { recursive: true });
const results = [];
for (const { script, what, args, env } of STEPS) {
  console.log(`\n━━━ npm run ${script} — ${what}`);
  const started = performance.now();
  const code = await runStep(script, args, env);
  const seconds = (performance.now() - started) / 1000;
  results.push({ script, what, status: stepStatus(script, code, { hasChromium, ci }), seconds });
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

/** Outcome counts of the conformance file in a vitest JSON report. */
function fromVitest(report, file) {
  try {
    const json = JSON.parse(readFileSync(`${root}${REPORTS}/${report}.json`, "utf8"));
    const suite = json.testResults.find((t) => t.name.endsWith(file));
    if (suite === undefined) return undefined;
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const { status } of suite.assertionResults) {
      if (status === "passed") counts.passed++;
      else if (status === "failed") counts.failed++;
      else counts.skipped++;
    }
    // A file that failed to load has no test results, only its own status.
    if (suite.status === "failed" && counts.failed === 0) counts.failed = 1;
    return counts;
  } catch {
    return undefined;
  }
}

/** Outcome counts of a JUnit XML report (Deno, Bun). */
function fromJUnit(report) {
  try {
    const xml = readFileSync(`${root}${REPORTS}/${report}.xml`, "utf8");
    const cases = xml.split("<testcase").slice(1);
    const failed = cases.filter((c) => /<(failure|error)\b/.test(c.split("</testcase>")[0])).length;
    const skipped = cases.filter((c) => /<skipped\b/.test(c.split("</testcase>")[0])).length;
    return { passed: cases.length - failed - skipped, failed, skipped };
  } catch {
    return undefined;
  }
}

/**
 * A runtime's result is its conformance cases' result: pass when all ran and passed, skipped
 * when none ran; with no report (the step died first) it is the step's own status.
 */
function outcome(script, counts) {
  if (counts === undefined) {
    return { status: statusOf(script) === "pass" ? "fail" : statusOf(script) };
  }
  const total = counts.passed + counts.failed + counts.skipped;
  let status = "pass";
  if (counts.failed > 0) status = "fail";
  else if (counts.passed === 0 || counts.skipped === total) status = "skipped";
  return { status, conformance: counts };
}
const bin = (name) => `${root}node_modules/.bin/${name}`;
const compatDate = /compatibility_date\s*=\s*"([^"]+)"/.exec(
  existsSync(`${root}wrangler.toml`) ? readFileSync(`${root}wrangler.toml`, "utf8") : "",
)?.[1];

const runtimes = [
  {
    runtime: "Node.js",
    version: process.version.slice(1),
    how: "vitest; fault server on node:http (127.0.0.1)",
    ...outcome("test:node", fromVitest("node", "test/conformance/node.test.ts")),
  },
  {
    runtime: "Deno",
    version: firstLine(bin("deno"), ["--version"]).replace(/^deno\s+/, "").split(" ")[0],
    how: 'deno test; imports "@stopstream/stopstream" via deno.json; fault server on Deno.serve',
    ...outcome("test:deno", fromJUnit("deno")),
  },
  {
    runtime: "Bun",
    version: firstLine(bin("bun"), ["--version"]),
    how: "bun test; fault server on Bun.serve",
    ...outcome("test:bun", fromJUnit("bun")),
  },
  {
    runtime: "Cloudflare Workers (workerd)",
    version: `${packageVersion("workerd")}${compatDate ? ` (compat date ${compatDate})` : ""}`,
    how: `@cloudflare/vitest-pool-workers ${
      packageVersion("@cloudflare/vitest-pool-workers")
    }; fault server over loopback TCP`,
    ...outcome("test:workers", fromVitest("workers", "test/workers/conformance.test.ts")),
  },
  {
    runtime: "Chromium (browser)",
    version: hasChromium
      ? firstLine(chromiumPath, ["--version"]).replace(/^Chromium\s+/, "").split(" ")[0]
      : "not installed",
    how: `headless, playwright-core ${
      packageVersion("playwright-core")
    }; esbuild ESM bundle; cross-origin fault server (CORS)`,
    ...outcome("test:browser", fromVitest("browser", "test/browser/conformance.test.ts")),
  },
];
mkdirSync(`${root}.tmp`, { recursive: true });
writeFileSync(
  `${root}.tmp/runtimes.json`,
  `${JSON.stringify({ generatedAt: new Date().toISOString(), runtimes }, null, 2)}\n`,
);

// ---- summary ----

printSummary(results);
console.log(
  "\nRuntimes (.tmp/runtimes.json; table for docs/runtimes.md: scripts/runtimes-table.mjs):",
);
for (const r of runtimes) {
  const c = r.conformance;
  const cases = c ? ` (${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped)` : "";
  console.log(`  ${pad(r.runtime, 29)} ${pad(r.version, 38)} ${r.status}${cases}`);
}

printChromiumNotice();

const count = (status) => results.filter((r) => r.status === status).length;
const failed = count("fail");
if (failed > 0) {
  const names = results.filter((r) => r.status === "fail").map((r) => r.script);
  console.log(`\nFAILED: ${names.join(", ")}`);
}
console.log(`\nsteps: ${count("pass")} passed, ${failed} failed, ${count("skipped")} skipped`);
process.exitCode = failed > 0 ? 1 : 0;
