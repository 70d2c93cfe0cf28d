// The relay benchmark, child side: the floor consumer (eventsource-parser + JSON.parse) reading
// the same loopback upstream three ways, taking turns: directly, through the pass-through
// control Worker, and through the relay Worker (both served as `npm start` serves the relay;
// lib/relay_host.mjs).
//   --task relay-ttfd --trials N · --task relay-throughput --n N --runs R
// with --server <upstream> --relay <URL> --control <URL> [--relay-pid P --control-pid P]: the
// workerd processes, whose CPU time is read around every throughput run.

import { context } from "../lib/context.mjs";
import { mainThreadCpuMs, processCpuMs } from "../lib/procfs.mjs";
import { REQUEST_BODY } from "../lib/streams.mjs";
import { throughputByTurns, ttfdByTurns } from "../lib/turns.mjs";
import { parseArgs, runTask } from "../lib/worker.mjs";

const args = parseArgs(process.argv.slice(2));
const TARGETS = ["direct", "control", "relay"];
const urls = {
  direct: `${args.server}/m/v1`,
  control: `${args.control}/v1`,
  relay: `${args.relay}/v1`,
};
const pids = {
  control: Number(args["control-pid"]) || null,
  relay: Number(args["relay-pid"]) || null,
};

function ctx(name, model, extra = {}) {
  return context("openai", urls[name], globalThis.fetch, {
    body: { ...REQUEST_BODY, model },
    ...extra,
  });
}

function ttfd() {
  return ttfdByTurns(TARGETS, ctx, Number(args.trials ?? 100));
}

/** CPU ms of a Worker's workerd process: its main thread (the isolate's) and all threads. */
function cpu(name) {
  const pid = pids[name];
  return pid ? { main: mainThreadCpuMs(pid), all: processCpuMs(pid) } : null;
}

async function throughput() {
  const cpuMs = { control: { main: [], all: [] }, relay: { main: [], all: [] } };
  const around = (name) => {
    const before = cpu(name);
    return () => {
      const after = cpu(name);
      if (before && after) {
        cpuMs[name].main.push(after.main - before.main);
        cpuMs[name].all.push(after.all - before.all);
      }
    };
  };
  const n = Number(args.n ?? 100_000);
  const runs = Number(args.runs ?? 3);
  return {
    ...await throughputByTurns(TARGETS, ctx, { n, runs, server: args.server, around }),
    cpuMs,
  };
}

const tasks = { "relay-ttfd": ttfd, "relay-throughput": throughput };
await runTask(tasks, args.task);
