// Starts the relay Worker as its own process tree on a free loopback port, the way a runner runs
// it, for the load test:
//   npm-start     `npm start` (scripts/start.mjs), on port 0 (the default)
//   wrangler-dev  `wrangler dev` — what `npm start` ran before (kept to reproduce its failure)
//   start-worker  wrangler's `unstable_startWorker` with its inspector proxy off (the same)
//   control       the pass-through control Worker in npm start's runtime (the yardstick)
//   control-js    the same Worker reading the body in JS, chunk by chunk (a JS relay's floor)
// A developer's own .dev.vars never applies: `envFile` replaces it (an empty file by default).

import { once } from "node:events";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { spawnTracked, stopTracked } from "../../scripts/process_groups.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const EMPTY_ENV = `${ROOT}test/e2e/empty.env`;
export const RUNNERS = ["npm-start", "wrangler-dev", "start-worker", "control", "control-js"];

/** A port the OS just handed out on 127.0.0.1. */
export async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  server.close();
  await once(server, "close");
  return port;
}

function command(runner, vars, envFile, port, inspectorPort, inspect) {
  const varArgs = Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  if (runner === "npm-start") {
    // Through npm itself, so that what is measured is whatever `npm start` runs.
    const inspector = inspect ? ["--inspector-port", String(inspectorPort)] : [];
    return [
      ...["npm", "start", "--silent", "--", "--port", "0", "--env-file", envFile],
      ...inspector,
      ...varArgs,
    ];
  }
  if (runner === "wrangler-dev") {
    return [
      process.execPath,
      `${ROOT}node_modules/wrangler/bin/wrangler.js`,
      ...["dev", "--ip", "127.0.0.1", "--port", String(port)],
      ...["--inspector-port", String(inspectorPort), "--show-interactive-dev-session=false"],
      ...["--env-file", envFile, "--persist-to", `${ROOT}.tmp/wrangler-load-${port}`],
      ...varArgs,
    ];
  }
  if (runner === "start-worker") {
    const host = `${ROOT}bench/lib/start_worker_host.mjs`;
    return [process.execPath, host, String(port), envFile, JSON.stringify(vars)];
  }
  if (runner === "control" || runner === "control-js") {
    const host = `${ROOT}bench/lib/control_host.mjs`;
    const bindings = runner === "control" ? vars : { ...vars, READ_IN_JS: "1" };
    return [process.execPath, host, String(port), JSON.stringify(bindings)];
  }
  throw new TypeError(`runner must be one of ${RUNNERS.join(", ")}, got "${runner}"`);
}

/**
 * Starts the relay with `runner`; resolves once it answers `GET /healthz` with
 * `{ url, pid, inspectorPort, output(), stop() }` (`pid`: the root of the relay's process tree;
 * `inspectorPort`: workerd's inspector, with `inspect` and the npm-start runner, else null).
 */
export async function startRelayProcess(
  { runner = "npm-start", vars = {}, envFile = EMPTY_ENV, inspect = false, timeoutMs = 60_000 } =
    {},
) {
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const [file, ...argv] = command(runner, vars, envFile, port, inspectorPort, inspect);
  const child = spawnTracked(file, argv, {
    cwd: ROOT,
    // Its own process group, so stop() reaches workerd too (and, tracked, it goes when we go).
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (s) => output += s);
  child.stderr.setEncoding("utf8").on("data", (s) => output += s);
  const stop = () => stopTracked(child, { graceMs: 5_000 });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${runner} exited early:\n${output}`);
    // npm start prints its URL (port 0: the OS picks it) once it answers; the others are polled.
    const printed = output.match(/playground at (http:\/\/127\.0\.0\.1:\d+)\//)?.[1];
    const url = printed ?? (runner === "npm-start" ? null : `http://127.0.0.1:${port}`);
    if (url !== null && await answers(url)) {
      const inspecting = inspect && runner === "npm-start" ? inspectorPort : null;
      return { url, pid: child.pid, inspectorPort: inspecting, output: () => output, stop };
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${runner} did not answer within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // poll interval
  }
}

async function answers(url) {
  try {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
