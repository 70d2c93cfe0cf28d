// The relay benchmark, parent side. Two parts:
//   1. the relay Worker next to the pass-through control Worker (the yardstick: the same local
//      runtime moving the same bytes without parsing them) and a direct read, on the
//      benchmark's loopback upstream: time to first delta, a 100k-delta stream, and the CPU time
//      of each Worker's workerd per 1,000 relayed events (lib/relay_host.mjs,
//      workers/relay.mjs);
//   2. the load test of `npm start` (bench/load.mjs, lib/relay_load.mjs), and the same load
//      through the control Worker, passing the body through untouched and reading it in JS.

import { fileURLToPath } from "node:url";
import { spawnTracked } from "../../scripts/process_groups.mjs";
import { startRelayHost } from "./relay_host.mjs";
import { runContender } from "./spawn.mjs";
import { latency, median, round, spread } from "./stats.mjs";

const LOAD = fileURLToPath(new URL("../load.mjs", import.meta.url));

function r3(obj) {
  return obj && Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, round(v)]));
}

/** Runs bench/load.mjs in its own process; resolves with its JSON result (or a failure). */
function runLoad(runner, plan, log) {
  const args = [
    LOAD,
    "--runner",
    runner,
    "--streams",
    plan.streams,
    "--waves",
    plan.waves,
    "--json",
  ];
  if (runner === "npm-start") args.push("--heap");
  // Tracked: a SIGTERM to the benchmark reaches it, and it stops its own relay (its SIGTERM).
  const child = spawnTracked(process.execPath, args.map(String), {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (s) => stdout += s);
  child.stderr.setEncoding("utf8").on("data", (s) => {
    for (const line of s.trim().split("\n")) log(`  load · ${runner} · ${line}`);
  });
  return new Promise((resolve) => {
    child.on("close", (code) => {
      try {
        resolve({ status: "measured", ...JSON.parse(stdout.trim().split("\n").at(-1)) });
      } catch {
        resolve({ status: "failed", error: `bench/load.mjs --runner ${runner} exited ${code}` });
      }
    });
  });
}

function perThousand(cpuMs, events) {
  return cpuMs.main.length === 0 ? null : {
    mainMs: round(median(cpuMs.main) / events * 1000),
    allMs: round(median(cpuMs.all) / events * 1000),
  };
}

async function sideBySide(plan, server, log) {
  const host = await startRelayHost(`${server.url}/m/v1`);
  const common = ["--server", server.url, "--relay", host.relay.url, "--control", host.control.url];
  try {
    const ttfd = await runContender("relay", [
      "--task",
      "relay-ttfd",
      "--trials",
      plan.trials,
      ...common,
    ]);
    if (!ttfd.ok) throw new Error(ttfd.error);
    const out = { runtime: "npm start's: Miniflare → one workerd per Worker" };
    out.ttfd = {
      direct: r3(latency(ttfd.direct)),
      control: r3(latency(ttfd.control)),
      relay: r3(latency(ttfd.relay)),
    };
    out.ttfd.relayOverControlMs = round(median(ttfd.relay) - median(ttfd.control));
    log(
      `  relay · ttfd: direct ${out.ttfd.direct.median} ms, control ${out.ttfd.control.median} ms, relay ${out.ttfd.relay.median} ms`,
    );
    const tp = await runContender("relay", [
      ...["--task", "relay-throughput", "--n", plan.n, "--runs", plan.runs],
      ...["--relay-pid", host.relay.pid ?? 0, "--control-pid", host.control.pid ?? 0],
      ...common,
    ]);
    if (!tp.ok) throw new Error(tp.error);
    out.throughput = {
      n: tp.n,
      events: tp.events,
      bytes: tp.bytes,
      direct: r3(spread(tp.wallMs.direct)),
      control: r3(spread(tp.wallMs.control)),
      relay: r3(spread(tp.wallMs.relay)),
      relayOverControl: round(median(tp.wallMs.relay) / median(tp.wallMs.control)),
      relayOverDirect: round(median(tp.wallMs.relay) / median(tp.wallMs.direct)),
      cpuPerThousandEvents: {
        control: perThousand(tp.cpuMs.control, tp.events),
        relay: perThousand(tp.cpuMs.relay, tp.events),
      },
    };
    log(`  relay · throughput: ${out.throughput.relayOverControl}× the control Worker`);
    return out;
  } finally {
    await host.stop();
  }
}

/** Runs the relay benchmark; resolves with its summary (or `{ status: "failed", error }`). */
export async function relayBench(plan, server, log) {
  const out = { status: "measured" };
  try {
    Object.assign(out, await sideBySide(plan, server, log));
  } catch (error) {
    return { status: "failed", error: String(error.message ?? error) };
  }
  out.load = await runLoad("npm-start", plan.load, log);
  if (plan.load.control) {
    out.controlLoad = await runLoad("control", plan.load, log);
    out.controlJsLoad = await runLoad("control-js", plan.load, log);
  }
  return out;
}
