// In-process A/B for diagnosing overhead (not part of `npm run bench`): the contenders take
// turns on the same prebuilt stream in one warmed-up process, many times, so that a fix in the
// client can be checked in seconds even on a busy machine.
//
//   node bench/ab.mjs [--workload openai] [--n 100000] [--delivery chunked] [--runs 15] \
//     floor stopstream-result stopstream-iterate
//
// Prints, per contender, the median and min of wall time and main-thread CPU time, and each
// contender's ratio to the first one. Uses the built dist/ (run `npm run build` first).
// `--profile <file.cpuprofile>` profiles the measured rounds of all contenders together (each
// contender's code is its own, so self time per function still says whose it is) and prints
// the top functions.

import { readFileSync } from "node:fs";
import { chunksFor, replayFetch } from "./lib/delivery.mjs";
import { context } from "./lib/context.mjs";
import { buildWorkload, hashText } from "./lib/streams.mjs";
import { median } from "./lib/stats.mjs";
import { parseArgs, startProfiler } from "./lib/worker.mjs";
import { printProfile } from "./lib/cpuprofile.mjs";

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
const contenders = [];
for (const name of names.length ? names : ["floor", "stopstream-result", "stopstream-iterate"]) {
  const c = (await import(`./workers/${name}.mjs`)).default;
  if (c.unavailable) throw new Error(`${name}: ${c.unavailable}`);
  contenders.push(c);
}
const data = buildWorkload(workload, n, 1);
const fetchImpl = replayFetch(chunksFor(args.delivery ?? "chunked", data, 1));
const ctx = () => context(workload, "http://bench.invalid/v1", fetchImpl);
const cpu = () =>
  Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;

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
    if (text !== null && (text.length !== data.textLength || hashText(text) !== data.textHash)) {
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
const base = samples.get(contenders[0]);
process.stdout.write(`${workload} ${n} ${args.delivery ?? "chunked"}, ${runs} runs each\n`);
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
