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
import { printProfile } from "./lib/cpuprofile.mjs";
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

printProfile(target);
process.stdout.write(`\nprofile: ${target}\n`);
