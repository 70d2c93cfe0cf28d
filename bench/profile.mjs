// Profiles one contender run with `node --cpu-prof` and prints where the time went.
//
//   node bench/profile.mjs <contender> [worker args…]
//   node bench/profile.mjs stopstream-iterate --workload openai --n 1000000 --delivery chunked
//
// Only the timed section is profiled (the worker starts the V8 profiler after generating the
// stream and warming up), sampling every 200 µs. Prints self time by function
// (file:function:line) and by file, so the overhead over the floor can be located. The
// .cpuprofile is kept in bench/results/ (git-ignored) for Chrome DevTools.

import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const [contender, ...rest] = process.argv.slice(2);
if (!contender) {
  process.stderr.write(
    "usage: node bench/profile.mjs <contender> [--workload … --n … --delivery …]\n",
  );
  process.exit(2);
}
const dir = fileURLToPath(new URL("./results/", import.meta.url));
const worker = fileURLToPath(new URL(`./workers/${contender}.mjs`, import.meta.url));
const args = rest.includes("--task") ? rest : ["--task", "throughput", ...rest];
const target = `${dir}${contender}.cpuprofile`;
const run = spawnSync(
  process.execPath,
  ["--expose-gc", worker, ...args, "--profile", target],
  { encoding: "utf8" },
);
process.stdout.write(run.stdout);
if (run.status !== 0) throw new Error(`worker failed: ${run.stderr}`);

const profile = JSON.parse(readFileSync(target, "utf8"));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const deltas = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const node = byId.get(profile.samples[i]);
  const us = deltas[i + 1] ?? 0;
  self.set(node, (self.get(node) ?? 0) + us);
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fnTotals = new Map();
const fileTotals = new Map();
for (const [node, us] of self) {
  const f = node.callFrame;
  const file = f.url.replace(/^file:\/\/.*?\/(node_modules|dist|bench)\//, "$1/") || "(native)";
  const key = `${file}:${f.functionName || "(anonymous)"}:${f.lineNumber + 1}`;
  fnTotals.set(key, (fnTotals.get(key) ?? 0) + us);
  fileTotals.set(file, (fileTotals.get(file) ?? 0) + us);
}
const show = (title, map, limit) => {
  process.stdout.write(`\n${title} (self time, of ${(total / 1000).toFixed(0)} ms sampled)\n`);
  for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    process.stdout.write(
      `${(us / 1000).toFixed(1).padStart(9)} ms ${
        (100 * us / total).toFixed(1).padStart(5)
      }%  ${key}\n`,
    );
  }
};
show("By function", fnTotals, 30);
show("By file", fileTotals, 15);
process.stdout.write(`\nprofile: ${target}\n`);
