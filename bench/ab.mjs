// In-process A/B for diagnosing overhead (not part of `npm run bench`): the contenders take
// turns on the same prebuilt stream in one warmed-up process, many times, so that a fix in the
// client can be checked in seconds even on a busy machine.
//
//   node bench/ab.mjs [--workload openai] [--n 100000] [--delivery chunked] [--runs 15] \
//     floor stopstream-result stopstream-iterate
//
// Prints, per contender, the median and min of wall time and main-thread CPU time, and each
// contender's ratio to the first one. Uses the built dist/ (run `npm run build` first).
// `--delivery http` reads the stream from the benchmark's loopback server instead of memory.
// `--profile <file.cpuprofile>` profiles the measured rounds of all contenders together (each
// contender's code is its own, so self time per function still says whose it is) and prints
// the top functions.
//
// Builds against each other: `--builds before=../old-tree,after=.,before2=../old-tree` runs
// each stopstream contender (default: stopstream-result and stopstream-iterate) from every
// named tree's built dist/, in turns, and prints each build's ratio to the first one with the
// 10th–90th percentile of the per-round ratios. Each name loads its own copy of its dist/, so
// a name given twice for one tree (before, before2) is an A/A pair: its ratio is the noise.
// With --builds, `--task` also picks the workload of `npm run bench` to compare:
//   throughput (default)      as above, every --workload/--n/--delivery of the full plan
//   interrupt --phase P       abort → settled, P = headers | mid | backoff (--trials per run)
//   ttfd                      request → first delta, loopback (--trials per run)
//   relay                     each tree's own relay Worker as `npm start` serves it: time to
//                             first delta and a --n-delta stream through it, and its workerd's
//                             CPU time (bench/lib/ab_relay.mjs); --resumable: with
//                             `x-stopstream-resumable: true`
//   load                      each tree's own bench/load.mjs (its `npm start`, 300 streams ×
//                             3 waves), one child process per run, builds in turns
// `--json <file>` also writes the summary as JSON.

import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { chunksFor, replayFetch } from "./lib/delivery.mjs";
import { context } from "./lib/context.mjs";
import { buildWorkload, hashText } from "./lib/streams.mjs";
import { median } from "./lib/stats.mjs";
import { parseArgs, startProfiler } from "./lib/worker.mjs";
import { printProfile } from "./lib/cpuprofile.mjs";
import { startServerProcess } from "./lib/spawn.mjs";
import { runInterrupt } from "./lib/interrupt_task.mjs";
import { runTtfd } from "./lib/ttfd_task.mjs";
import { contendersOf, parseBuilds, printRatios, ratios, snapshot } from "./lib/ab_builds.mjs";
import { relayAB, relayLoadAB } from "./lib/ab_relay.mjs";

async function profile() {
  const profiler = await startProfiler();
  return {
    async stop() {
      await profiler.stop(args.profile);
      printProfile(args.profile);
    },
  };
}

const argv = process.argv.slice(2);
const names = argv.filter((a, i) => !a.startsWith("--") && !argv[i - 1]?.startsWith("--"));
const args = parseArgs(argv.filter((a) => !names.includes(a)));
const workload = args.workload ?? "openai";
const n = Number(args.n ?? 100_000);
const runs = Number(args.runs ?? 15);
const delivery = args.delivery ?? "chunked";
const task = args.task ?? "throughput";
const builds = args.builds ? parseBuilds(args.builds) : null;
const dropSnapshots = builds ? snapshot(builds) : () => {};
const served = delivery === "http" || ["interrupt", "ttfd", "relay"].includes(task);
const server = served ? await startServerProcess() : null;

async function loadContenders() {
  if (builds) {
    const bases = names.length ? names : ["stopstream-result", "stopstream-iterate"];
    return await contendersOf(bases, builds);
  }
  const contenders = [];
  for (const name of names.length ? names : ["floor", "stopstream-result", "stopstream-iterate"]) {
    const c = (await import(`./workers/${name}.mjs`)).default;
    if (c.unavailable) throw new Error(`${name}: ${c.unavailable}`);
    contenders.push(c);
  }
  return contenders;
}

/** The stream to consume: prebuilt in memory, or the loopback server's (`--delivery http`). */
async function source() {
  if (delivery !== "http") {
    const data = buildWorkload(workload, n, 1);
    const fetchImpl = replayFetch(chunksFor(delivery, data, 1));
    return { expect: data, ctx: () => context(workload, "http://bench.invalid/v1", fetchImpl) };
  }
  const key = `tp.${workload}.${n}.1`;
  const expect = await (await fetch(`${server.url}/meta/${key}`)).json();
  return { expect, ctx: () => context(workload, `${server.url}/s/${key}/v1`, globalThis.fetch) };
}

const cpu = () =>
  Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;

async function throughput(contenders) {
  const { expect, ctx } = await source();
  const samples = new Map(contenders.map((c) => [c, { wall: [], cpu: [] }]));
  let profiler = null;
  for (let round = -3; round < runs; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = contenders[(k + Math.max(round, 0)) % contenders.length];
      globalThis.gc?.();
      const c0 = cpu();
      const t0 = performance.now();
      const { text } = await c.consume(ctx());
      const wall = performance.now() - t0;
      const used = cpu() - c0;
      if (
        text !== null && (text.length !== expect.textLength || hashText(text) !== expect.textHash)
      ) {
        throw new Error(`${c.name}: wrong text`);
      }
      if (round === -1 && k === contenders.length - 1 && args.profile) profiler = await profile();
      if (round >= 0) {
        samples.get(c).wall.push(wall);
        samples.get(c).cpu.push(used);
      }
    }
  }
  if (profiler) await profiler.stop();
  return samples;
}

function printFirstRatios(contenders, samples) {
  const base = samples.get(contenders[0]);
  for (const c of contenders) {
    const s = samples.get(c);
    const line = [
      c.name.padEnd(20),
      `wall ${median(s.wall).toFixed(1)} (min ${Math.min(...s.wall).toFixed(1)})`,
      `cpu ${median(s.cpu).toFixed(1)} (min ${Math.min(...s.cpu).toFixed(1)}) ms`,
      `× first: wall ${(median(s.wall) / median(base.wall)).toFixed(3)}`,
      `cpu ${(median(s.cpu) / median(base.cpu)).toFixed(3)}`,
      `min-cpu ${(Math.min(...s.cpu) / Math.min(...base.cpu)).toFixed(3)}`,
    ];
    process.stdout.write(line.join("  ") + "\n");
  }
}

/** `{ base: { metric: { build: [one value per round] } } }` → `{ base: { metric: ratios } }`. */
function summarize(rounds) {
  const out = {};
  for (const [base, metrics] of Object.entries(rounds)) {
    out[base] = {};
    for (const [metric, byBuild] of Object.entries(metrics)) {
      out[base][metric] = ratios(byBuild, builds[0].name);
      printRatios(`${base} ${metric}`, out[base][metric]);
    }
  }
  return out;
}

/** Latency tasks: `--runs` runs of `--trials` trials, contenders in turns; a median per run. */
async function latencyRounds(contenders, run, key, label) {
  const rounds = {};
  for (let r = 0; r < runs; r++) {
    const out = await run(contenders, { ...args, server: server.url });
    if (!out.ok) throw new Error(out.error);
    for (const c of contenders) {
      const record = out.results[c.name];
      if (!record.ok) throw new Error(`${c.name}: ${record.skipped ?? record.error}`);
      ((rounds[c.base] ??= { [label]: {} })[label][c.build] ??= []).push(median(record[key]));
    }
  }
  return rounds;
}

async function main() {
  if (task !== "throughput" && !builds) throw new TypeError(`--task ${task} needs --builds`);
  if (task === "load") return await relayLoadAB(builds, { runs }, summarize);
  if (task === "relay") {
    return await relayAB(builds, { ...args, n, runs }, server.url, summarize);
  }
  const contenders = await loadContenders();
  if (task === "interrupt" || task === "ttfd") {
    const list = task === "ttfd"
      ? contenders.filter((c) => c.base !== "stopstream-result")
      : contenders;
    const run = task === "ttfd" ? runTtfd : runInterrupt;
    const [key, label] = task === "ttfd" ? ["samplesMs", "ttfd"] : ["latenciesMs", "abort→settled"];
    process.stdout.write(`${task} ${args.phase ?? ""}, ${runs} runs\n`);
    return summarize(await latencyRounds(list, run, key, label));
  }
  const samples = await throughput(contenders);
  process.stdout.write(`${workload} ${n} ${delivery}, ${runs} runs each\n`);
  if (!builds) return printFirstRatios(contenders, samples);
  const rounds = {};
  for (const c of contenders) {
    const byBase = rounds[c.base] ??= { wall: {}, cpu: {} };
    byBase.wall[c.build] = samples.get(c).wall;
    byBase.cpu[c.build] = samples.get(c).cpu;
  }
  return summarize(rounds);
}

try {
  const summary = await main();
  if (args.json && summary) {
    const meta = { task, phase: args.phase, workload, n, delivery, runs, trials: args.trials };
    Object.assign(meta, { builds, loadAverage: loadavg() });
    writeFileSync(args.json, JSON.stringify({ ...meta, summary }, null, 2) + "\n");
  }
} finally {
  server?.stop();
  dropSnapshots();
}
