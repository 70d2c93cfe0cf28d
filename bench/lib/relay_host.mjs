// Runs the relay Worker and the pass-through control Worker side by side for the relay
// benchmark, in a process of its own: the relay exactly as `npm start` serves it
// (scripts/start.mjs: wrangler's bundle and bindings, one workerd through Miniflare), the
// control Worker (control_worker.mjs) in the same runtime with the same compatibility date and
// flags, both pointed at the benchmark's loopback upstream. Each has its own workerd process
// (so its CPU time is its own) and its own inspector port (for profiles and heap snapshots).

import { fileURLToPath, pathToFileURL } from "node:url";
import { spawnTracked } from "../../scripts/process_groups.mjs";
import { startRelay } from "../../scripts/start.mjs";
import { serveControl } from "./control_host.mjs";
import { listeningPorts, processTree } from "./procfs.mjs";
import { freePort } from "./relay_process.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The workerd process of this host that listens on `url`'s port. */
function workerdServing(url) {
  const port = Number(new URL(url).port);
  return processTree(process.pid).find((p) =>
    p.name === "workerd" && listeningPorts(p.pid).includes(port)
  )?.pid ?? null;
}

/**
 * Starts the host process; resolves with `{ relay, control, stop }`, each Worker as
 * `{ url, pid, inspectorPort }` (`pid`: its workerd process; the relay's also `scriptPath`, its
 * bundle). `vars` are more bindings of the relay (`MAX_STREAM_BYTES`, say).
 */
export function startRelayHost(upstream, vars = {}) {
  const args = [fileURLToPath(import.meta.url), upstream, JSON.stringify(vars)];
  // Tracked: on SIGTERM, Miniflare stops its workerd processes.
  const child = spawnTracked(process.execPath, args, {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (s) => err += s);
  return new Promise((resolve, reject) => {
    child.on(
      "exit",
      (code) => reject(new Error(`relay host exited (${code}): ${err.slice(-2000)}`)),
    );
    child.stdout.setEncoding("utf8").on("data", (s) => {
      out += s;
      // Wrangler may log a line first ("Using secrets defined in …").
      const line = out.split("\n").find((l, i, all) => l.startsWith("{") && i < all.length - 1);
      if (line === undefined) return;
      resolve({
        ...JSON.parse(line),
        stop: () =>
          new Promise((done) => {
            child.removeAllListeners("exit");
            child.once("exit", done);
            child.stdin.end();
          }),
      });
    });
  });
}

async function host(upstream, relayVars) {
  const vars = { UPSTREAM_BASE_URL: upstream };
  const [relayInspector, controlInspector] = [await freePort(), await freePort()];
  const relay = await startRelay({
    port: 0,
    vars: { ...vars, ...relayVars },
    envFile: `${ROOT}test/e2e/empty.env`,
    inspectorPort: relayInspector,
  });
  const control = await serveControl({ port: 0, vars, inspectorPort: controlInspector });
  process.stdout.write(`${
    JSON.stringify({
      relay: {
        url: relay.url,
        pid: workerdServing(relay.url),
        inspectorPort: relayInspector,
        scriptPath: relay.scriptPath,
      },
      control: {
        url: control.url,
        pid: workerdServing(control.url),
        inspectorPort: controlInspector,
      },
    })
  }\n`);
  process.stdin.on("end", async () => {
    await Promise.all([relay.stop(), control.miniflare.dispose()]);
    process.exit(0);
  });
  process.stdin.resume();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await host(process.argv[2], JSON.parse(process.argv[3] ?? "{}"));
}
