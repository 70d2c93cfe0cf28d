// Runs a latency task (interrupt or ttfd) for several contenders in one process, taking turns
// trial by trial: `node bench/workers/latency.mjs --task ttfd --contenders raw,floor --server …`.
// Every contender file also runs these tasks alone (`node bench/workers/raw.mjs --task ttfd …`).

import { parseArgs, runWorker } from "../lib/worker.mjs";

const names = String(parseArgs(process.argv.slice(2)).contenders ?? "").split(",").filter(Boolean);
const contenders = [];
for (const name of names) contenders.push((await import(`./${name}.mjs`)).default);
runWorker(contenders);
