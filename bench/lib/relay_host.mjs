// Runs the relay Worker locally for the relay benchmark, in its own process:
// `unstable_startWorker` — the dev runtime behind `wrangler dev` (same wrangler.toml, same local
// workerd) — with its upstream pointed at the benchmark's loopback server.
//
// Why not the `wrangler dev` CLI: it always attaches its DevTools inspector proxy, which enables
// the Network domain and ships one event per response chunk from workerd to wrangler. Under
// 100–200 concurrent streams that alone took workerd to > 1 GiB RSS and thousands of sockets
// ("Too many open files"); it measures wrangler's instrumentation, not the relay. Here the
// inspector is off (`dev.inspector: false`), nothing else changes.

import { spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The workerd process started by `parent` (for its RSS), or null. */
export function findWorkerd(parent) {
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === parent && stat.includes("(workerd)")) return Number(pid);
    } catch {
      // The process ended while we looked.
    }
  }
  return null;
}

/** Starts the host process; resolves with `{ url, workerd, stop }`. */
export function startRelay(upstream) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), upstream], {
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
      if (!out.includes("\n")) return;
      const info = JSON.parse(out.split("\n")[0]);
      resolve({
        ...info,
        stop: () =>
          new Promise((done) => {
            child.once("exit", done);
            child.stdin.end();
          }),
      });
    });
  });
}

async function host(upstream) {
  // No lookup of workers.cloudflare.com for the `Request.cf` object: loopback only.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  const { unstable_startWorker } = await import("wrangler");
  // An empty env file: a developer's own .dev.vars must not point the benchmark elsewhere.
  const envFile = `${tmpdir()}/stopstream-bench-${process.pid}.env`;
  writeFileSync(envFile, "");
  const worker = await unstable_startWorker({
    config: `${ROOT}wrangler.toml`,
    envFiles: [envFile],
    bindings: { UPSTREAM_BASE_URL: { type: "plain_text", value: upstream } },
    dev: {
      inspector: false,
      server: { hostname: "127.0.0.1", port: 0 },
      logLevel: "error",
      watch: false,
    },
  });
  await worker.ready;
  const url = (await worker.url).href.replace(/\/$/, "");
  process.stdout.write(JSON.stringify({ url, workerd: findWorkerd(process.pid) }) + "\n");
  process.stdin.on("end", async () => {
    await worker.dispose();
    rmSync(envFile, { force: true });
    process.exit(0);
  });
  process.stdin.resume();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await host(process.argv[2]);
}
