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
import { chmodSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The workerd processes started by `parent`, oldest first. */
export function workerdChildren(parent) {
  const found = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === parent && stat.includes("(workerd)")) {
        found.push({ pid: Number(pid), start: Number(fields[19]) });
      }
    } catch {
      // The process ended while we looked.
    }
  }
  return found.sort((a, b) => a.start - b.start).map((p) => p.pid);
}

/** TCP ports `pid` listens on (its socket inodes matched against /proc/<pid>/net/tcp{,6}). */
export function listeningPorts(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = readlinkSync(`/proc/${pid}/fd/${fd}`).match(/^socket:\[(\d+)\]$/);
      if (m) inodes.add(m[1]);
    } catch {
      // Closed while we looked.
    }
  }
  const ports = new Set();
  for (const table of ["tcp", "tcp6"]) {
    let text = "";
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.trim().split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[1] local address:port (hex), f[3] state (0A = LISTEN), f[9] inode.
      if (f[3] === "0A" && inodes.has(f[9])) ports.add(parseInt(f[1].split(":")[1], 16));
    }
  }
  return [...ports];
}

/** The DevTools URL of the relay's isolate if `port` is a workerd inspector serving it. */
async function relayInspector(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/json/list`, {
      signal: AbortSignal.timeout(1000),
    });
    const targets = await res.json();
    const t = targets.find((t) => String(t.id).startsWith("core:user:"));
    return t ? t.webSocketDebuggerUrl ?? `ws://127.0.0.1:${port}/${t.id}` : null;
  } catch {
    return null;
  }
}

/**
 * `unstable_startWorker` starts two workerd processes: wrangler's ProxyWorker (it owns the port
 * of `worker.url` and forwards every request) and the relay's own workerd (it runs the relay
 * and makes the upstream connections). Tells them apart by that port; finds the relay's
 * inspector (see host()).
 */
async function identify(urlPort) {
  const out = { workerd: null, proxyWorkerd: null, inspector: null };
  for (const pid of workerdChildren(process.pid)) {
    const ports = listeningPorts(pid);
    if (ports.includes(urlPort)) {
      out.proxyWorkerd = pid;
      continue;
    }
    for (const port of ports) {
      const inspector = await relayInspector(port);
      if (inspector) Object.assign(out, { workerd: pid, inspector });
    }
    out.workerd ??= pid;
  }
  return out;
}

/** Starts the host process; resolves with `{ url, workerd, proxyWorkerd, inspector, stop }`. */
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
  // workerd with an inspector on an ephemeral loopback port, and no client attached unless the
  // load task connects one (for heap snapshots: HeapProfiler + Runtime.getHeapUsage, no Network
  // domain, no per-chunk events). wrangler's own inspector proxy stays off (`inspector: false`).
  const workerdModule = await import("workerd");
  const realWorkerd = workerdModule.default.default ?? workerdModule.default;
  const wrapper = `${tmpdir()}/stopstream-bench-workerd-${process.pid}.sh`;
  writeFileSync(wrapper, `#!/bin/sh\nexec '${realWorkerd}' "$@" --inspector-addr=127.0.0.1:0\n`);
  chmodSync(wrapper, 0o755);
  process.env.MINIFLARE_WORKERD_PATH = wrapper;
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
  // `worker.ready` can resolve before the relay's own workerd runs (the proxy holds requests
  // while the build command runs): one request through to the relay first.
  await (await fetch(`${url}/healthz`)).text();
  let ids = await identify(Number(new URL(url).port));
  for (let i = 0; i < 50 && !ids.inspector; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    ids = await identify(Number(new URL(url).port));
  }
  process.stdout.write(JSON.stringify({ url, ...ids }) + "\n");
  process.stdin.on("end", async () => {
    await worker.dispose();
    rmSync(envFile, { force: true });
    rmSync(wrapper, { force: true });
    process.exit(0);
  });
  process.stdin.resume();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await host(process.argv[2]);
}
