// A health checker in its own process (so the load driver's busy event loop never delays it):
// `GET <url>/healthz` on a new connection every `intervalMs`, one at a time, each timed from
// before the connection opens to the end of the body. Prints `ready` once, then, when its stdin
// closes, one JSON line: `{ samples: [ms, …], failures: n }` (a failure: an error, a non-200 or
// no answer within 5 s).
//   node bench/lib/healthz_probe.mjs <relay URL> [intervalMs=50]

import { get } from "node:http";
import { fileURLToPath } from "node:url";
import { spawnTracked } from "../../scripts/process_groups.mjs";

/** Starts the probe as a child process; resolves with `{ stop(): Promise<{samples, failures}> }`. */
export async function startHealthzProbe(url, intervalMs = 50) {
  const child = spawnTracked(process.execPath, [fileURLToPath(import.meta.url), url, intervalMs], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (s) => out += s);
  await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`healthz probe exited (${code})`)));
    child.stdout.on("data", () => out.startsWith("ready\n") && resolve());
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners("exit");
        child.once("exit", () => resolve(JSON.parse(out.split("\n")[1])));
        child.stdin.end();
      }),
  };
}

function probeOnce(url) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = get(`${url}/healthz`, { agent: false, timeout: 5_000 }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode === 200 ? performance.now() - t0 : null));
      res.once("error", () => resolve(null));
    });
    req.once("timeout", () => req.destroy(new Error("timeout")));
    req.once("error", () => resolve(null));
  });
}

async function main(url, intervalMs) {
  const samples = [];
  let failures = 0;
  let running = true;
  process.stdin.once("end", () => running = false);
  process.stdin.resume();
  process.stdout.write("ready\n");
  while (running) {
    const ms = await probeOnce(url);
    if (ms === null) failures++;
    else samples.push(Math.round(ms * 100) / 100);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  process.stdout.write(`${JSON.stringify({ samples, failures })}\n`, () => process.exit(0));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await main(process.argv[2], Number(process.argv[3] ?? 50));
}
