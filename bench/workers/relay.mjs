// The relay benchmark, child side: the floor consumer (eventsource-parser + JSON.parse) reading
// the same loopback upstream three ways, taking turns: directly, through the pass-through
// control Worker, and through the relay Worker (both served as `npm start` serves the relay;
// lib/relay_host.mjs).
//   --task relay-ttfd --trials N · --task relay-throughput --n N --runs R
// with --server <upstream> --relay <URL> --control <URL> [--relay-pid P --control-pid P]: the
// workerd processes, whose CPU time is read around every throughput run.

import floor from "./floor.mjs";
import { context } from "../lib/context.mjs";
import { mainThreadCpuMs, processCpuMs } from "../lib/procfs.mjs";
import { hashText, REQUEST_BODY } from "../lib/streams.mjs";
import { parseArgs } from "../lib/worker.mjs";

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

/** The targets in turn order for round `i` (rotating, so none always goes first). */
function turn(i) {
  return TARGETS.map((_, k) => TARGETS[(i + k) % TARGETS.length]);
}

async function ttfd() {
  const trials = Number(args.trials ?? 100);
  const samples = { direct: [], control: [], relay: [] };
  for (let i = 0; i < trials + 10; i++) {
    for (const name of turn(i)) {
      let first = -1;
      const t0 = performance.now();
      const onText = () => {
        if (first < 0) first = performance.now() - t0;
      };
      await floor.consume(ctx(name, "short", { onText }));
      if (i >= 10) samples[name].push(first);
    }
  }
  return samples;
}

/** CPU ms of a Worker's workerd process: its main thread (the isolate's) and all threads. */
function cpu(name) {
  const pid = pids[name];
  return pid ? { main: mainThreadCpuMs(pid), all: processCpuMs(pid) } : null;
}

async function throughput() {
  const n = Number(args.n ?? 100_000);
  const key = `tp.openai.${n}.1`;
  const expect = await (await fetch(`${args.server}/meta/${key}`)).json();
  const wallMs = { direct: [], control: [], relay: [] };
  const cpuMs = { control: { main: [], all: [] }, relay: { main: [], all: [] } };
  for (const name of TARGETS) await floor.consume(ctx(name, "tp.openai.2000.2"));
  for (let run = 0; run < Number(args.runs ?? 3); run++) {
    for (const name of turn(run)) {
      const before = cpu(name);
      const t0 = performance.now();
      const { text } = await floor.consume(ctx(name, key));
      wallMs[name].push(performance.now() - t0);
      const after = cpu(name);
      if (before && after) {
        cpuMs[name].main.push(after.main - before.main);
        cpuMs[name].all.push(after.all - before.all);
      }
      if (text.length !== expect.textLength || hashText(text) !== expect.textHash) {
        throw new Error(
          `${name}: wrong text (${text.length} chars, ${expect.textLength} expected)`,
        );
      }
    }
  }
  return { n, events: expect.events, bytes: expect.bytes, wallMs, cpuMs };
}

const tasks = { "relay-ttfd": ttfd, "relay-throughput": throughput };
let out;
try {
  out = { ok: true, ...await tasks[args.task]() };
} catch (error) {
  out = { ok: false, error: String(error?.stack ?? error) };
}
process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
