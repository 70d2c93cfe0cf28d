// `npm start`: the relay Worker of wrangler.toml in local workerd on 127.0.0.1:8787, with its
// built-in demo upstream unless .dev.vars (or --var) configures one.
//
//   node scripts/start.mjs [--port 8787] [--var NAME:value]… [--env-file path] [--inspector-port N]
//
// Why not `wrangler dev` (bench/notes.md, "Why npm start is not wrangler dev"): its DevTools
// inspector proxy enables workerd's Network domain and posts every inspector message — one per
// relayed chunk — to wrangler's Node process over a fresh loopback connection, so a few hundred
// streams open thousands of sockets, pile them up in CLOSE-WAIT and end in "Too many open
// files". `unstable_startWorker` can turn that proxy off, but still sends every request through
// its ProxyWorker, a second workerd process (an extra hop, half again the CPU), which answers a
// POST whose forward failed with 503 "Your worker restarted mid-request" (seen after waves of
// disconnects with keep-alive callers). So this runs the Worker the way wrangler's
// own test pool does: the bundle `wrangler deploy` would upload (built once, by wrangler,
// `[build]` step included), the bindings wrangler reads (wrangler.toml [vars] + .dev.vars, via
// `unstable_getMiniflareWorkerOptions`), in one workerd process through Miniflare — the
// runtime under `wrangler dev` — with nothing in between. No file watching: restart after an
// edit (or use `npx wrangler dev` for a reload loop at low concurrency).

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { get } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { isRunning } from "./process_groups.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WRANGLER = `${ROOT}node_modules/wrangler/bin/wrangler.js`;

/**
 * Wrangler without a banner (the banner runs the npm update check), usage metrics or error
 * reports, and Miniflare without the `Request.cf` download from workers.cloudflare.com: nothing
 * leaves the machine, nothing fails (and prints a stack) when it is offline.
 */
export const QUIET_ENV = {
  WRANGLER_HIDE_BANNER: "true",
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};

/**
 * Bundles the Worker of wrangler.toml into `outdir` exactly as `wrangler deploy` would upload it
 * (its `[build]` command runs first); resolves with the main module's path. Wrangler's output is
 * shown only when it fails.
 */
export function buildWorker(outdir) {
  const args = [WRANGLER, "deploy", "--dry-run", "--outdir", outdir, "--config", "wrangler.toml"];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...QUIET_ENV },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (s) => output += s);
  child.stderr.setEncoding("utf8").on("data", (s) => output += s);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(`${outdir}/worker.js`);
      else reject(new Error(`building the Worker failed (wrangler exit ${code}):\n${output}`));
    });
  });
}

/**
 * Serves one Worker module (and the modules it imports, by wrangler's module rules) with
 * Miniflare on `host:port`; `workerOptions` are Miniflare worker options (bindings, flags).
 * Resolves with `{ url, miniflare }` once workerd listens.
 */
export async function serveWorker(
  { scriptPath, workerOptions = {}, name = "worker", host = "127.0.0.1", port, inspectorPort },
) {
  const { Log, LogLevel, Miniflare } = await import("miniflare");
  const miniflare = new Miniflare({
    host,
    port,
    ...(inspectorPort !== undefined ? { inspectorPort } : {}),
    // A fixed `Request.cf` instead of a download (see QUIET_ENV).
    cf: false,
    // Warnings and errors only; no line per request.
    log: new Log(LogLevel.WARN),
    logRequests: false,
    handleRuntimeStdio: (stdout, stderr) => {
      forwardLines(stdout, process.stdout);
      forwardLines(stderr, process.stderr);
    },
    workers: [{
      ...workerOptions,
      name,
      modules: true,
      scriptPath,
      modulesRoot: scriptPath.slice(0, scriptPath.lastIndexOf("/")),
    }],
  });
  const url = await miniflare.ready;
  return { url: url.href.replace(/\/$/, ""), miniflare };
}

/**
 * workerd's own output, line by line, without the `stack: <binary>@<address> …` lines it adds to
 * a fatal error (a port in use): addresses in its binary tell a user nothing, and the error is
 * explained in a sentence (see main).
 */
function forwardLines(from, to) {
  createInterface({ input: from, crlfDelay: Infinity }).on("line", (line) => {
    if (!line.startsWith("stack: ")) to.write(`${line}\n`);
  });
}

/**
 * Builds and serves the relay Worker; resolves once `GET /healthz` answers 200 with
 * `{ url, scriptPath, stop }` (`scriptPath`: the bundle, beside its `.map`, until `stop`).
 * `vars` override bindings (like `wrangler dev --var`); `envFile` replaces .dev.vars (like
 * `--env-file`).
 */
export async function startRelay({ port = 8787, vars = {}, envFile, inspectorPort } = {}) {
  Object.assign(process.env, QUIET_ENV);
  mkdirSync(`${ROOT}.wrangler/tmp`, { recursive: true });
  const outdir = mkdtempSync(`${ROOT}.wrangler/tmp/start-`);
  const cleanup = () => rmSync(outdir, { recursive: true, force: true });
  // Miniflare ends the process itself on SIGINT/SIGTERM (after stopping workerd).
  process.once("exit", cleanup);
  try {
    const scriptPath = await buildWorker(outdir);
    const { unstable_getMiniflareWorkerOptions } = await import("wrangler");
    const { workerOptions } = unstable_getMiniflareWorkerOptions(
      `${ROOT}wrangler.toml`,
      undefined,
      envFile !== undefined ? { envFiles: [envFile] } : undefined,
    );
    workerOptions.bindings = { ...workerOptions.bindings, ...vars };
    const served = await serveWorker({
      scriptPath,
      workerOptions,
      name: "stopstream-relay",
      port,
      inspectorPort,
    });
    const status = await healthz(served.url);
    if (status !== 200) throw new Error(`GET /healthz answered ${status}`);
    let stopped;
    const stop = () => stopped ??= served.miniflare.dispose().finally(cleanup);
    return { url: served.url, scriptPath, stop };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** `GET /healthz` on a connection of its own, closed after the answer (nothing left pooled). */
function healthz(url) {
  return new Promise((resolve, reject) => {
    get(`${url}/healthz`, { agent: false }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode));
    }).once("error", reject);
  });
}

function parseVars(list = []) {
  const vars = {};
  for (const entry of list) {
    const at = entry.indexOf(":");
    if (at <= 0) throw new TypeError(`--var takes NAME:value, got "${entry}"`);
    vars[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return vars;
}

const USAGE = "npm start -- [--port 8787] [--var NAME:value]… [--env-file path] " +
  "[--inspector-port N]";

function port(value, name) {
  const n = Number(value);
  if (!(Number.isInteger(n) && n >= 0 && n <= 65535)) {
    throw new TypeError(`${name} takes a port number (0-65535), got "${value}"`);
  }
  return n;
}

/** The command line as startRelay options; a mistake is one line and exit 64 (EX_USAGE). */
function options(argv) {
  try {
    const { values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string", default: "8787" },
        var: { type: "string", multiple: true },
        "env-file": { type: "string" },
        "inspector-port": { type: "string" },
      },
    });
    const inspector = values["inspector-port"];
    return {
      port: port(values.port, "--port"),
      vars: parseVars(values.var),
      envFile: values["env-file"],
      inspectorPort: inspector === undefined ? undefined : port(inspector, "--inspector-port"),
    };
  } catch (error) {
    process.stderr.write(`stopstream relay: ${error.message} (usage: ${USAGE})\n`);
    process.exit(64);
  }
}

/** The parent of process `pid`, where /proc tells (Linux), else null. */
function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

/**
 * Ends this process when `npm start` itself ends. npm runs it as npm → `sh -c` → node, and passes
 * SIGTERM on to the shell only, which dies of it without passing it on (dash), and SIGHUP to
 * nobody: a caller that stops `npm start` with `child.kill()` would leave this process and its
 * workerd running, holding the port. Nothing announces a parent's end, so it is looked for
 * twice a second.
 */
function endWithNpm() {
  const shell = process.ppid;
  const npm = parentOf(shell);
  const check = () => {
    if (process.ppid !== shell || (npm !== null && npm > 1 && !isRunning(npm))) process.exit(143);
  };
  setInterval(check, 500).unref();
}

async function main() {
  const settings = options(process.argv.slice(2));
  // Miniflare stops workerd on SIGINT, SIGTERM and exit, not on SIGHUP (a closed terminal): make
  // that an exit too (128 + 1, as dying of it would report).
  process.once("SIGHUP", () => process.exit(129));
  if (process.env.npm_lifecycle_event === "start") endWithNpm();
  let relay;
  try {
    relay = await startRelay(settings);
  } catch (error) {
    process.stderr.write(`stopstream relay: could not start: ${error.message}\n`);
    process.exit(1);
  }
  process.stdout.write(
    `stopstream relay: playground at ${relay.url}/ (OpenAI base URL ${relay.url}/v1)\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
