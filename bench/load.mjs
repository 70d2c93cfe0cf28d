// The relay's load test on its own (`npm run bench` runs it too, at full size):
//
//   npm run build && node bench/load.mjs
//     [--runner npm-start|wrangler-dev|start-worker|control|control-js]
//     [--streams 300] [--waves 3] [--heap] [--json]
//
// Waves of concurrent streams through the relay Worker, started the way `--runner` starts it,
// to the demo upstream on a loopback socket; every fifth caller disconnects mid-answer. Prints
// one line per wave and exits non-zero if a wave broke a promise (lib/relay_load.mjs). With
// `--json`, the full result is the last line on stdout. `--runner wrangler-dev` reproduces why
// `npm start` no longer runs `wrangler dev` (bench/notes.md).

import { parseArgs } from "./lib/worker.mjs";
import { runRelayLoad } from "./lib/relay_load.mjs";

const args = parseArgs(process.argv.slice(2));
const dist = process.env.STOPSTREAM_DIST ?? new URL("../dist/index.js", import.meta.url).href;
const lib = {
  ...await import(new URL("apps/demo/upstream.js", dist).href),
  ...await import(new URL("apps/cli/serve.js", dist).href),
};

/** One wave as a line. */
function waveLine(w) {
  const d = w.disconnects;
  const h = w.healthz;
  return [
    `wave ${w.wave}: ${w.maxConcurrent} open at once, ${w.durationMs} ms`,
    `exact ${w.callers.complete}/${w.streams - w.callers.disconnected}` +
    (w.callers.failed + w.callers.wrong
      ? ` (failed ${w.callers.failed}, wrong ${w.callers.wrong})`
      : ""),
    `disconnects ${d.n}: cancelled ${d.withinLimit} within 2 s` +
    (d.cancelMs ? ` (median ${d.cancelMs.median} ms, max ${d.cancelMs.max} ms)` : "") +
    (d.finishedFirst + d.ranOn + d.stillOpen
      ? `, finished first ${d.finishedFirst}, ran on ${d.ranOn}, still open ${d.stillOpen}`
      : ""),
    `fds ${w.fds.baseline} → peak ${w.fds.peak} → ${w.fds.after} (after ${w.fds.settleMs} ms), ` +
    `CLOSE-WAIT peak ${w.closeWait.peak}, internal connections peak ${w.internalConnections.peak}`,
    `healthz ${h.n} probes: median ${h.median ?? "—"} ms, max ${h.max ?? "—"} ms` +
    (h.failures ? `, ${h.failures} failed` : ""),
    `relay CPU ${w.relayCpuMs} ms, driver CPU ${w.driverCpuMs} ms`,
    w.broken.length ? `BROKEN: ${w.broken.join(", ")}` : "ok",
  ].join(" · ");
}

const result = await runRelayLoad(lib, {
  runner: args.runner ?? "npm-start",
  streams: Number(args.streams ?? 300),
  waves: Number(args.waves ?? 3),
  ...(args.words ? { words: Number(args.words) } : {}),
  ...(args.ramp ? { rampMs: Number(args.ramp) } : {}),
  heap: Boolean(args.heap),
  log: (w) =>
    process.stderr.write(
      `${waveLine(w)}\n${w.firstProblem ? `  first problem: ${w.firstProblem}\n` : ""}`,
    ),
});
if (args.json) process.stdout.write(`${JSON.stringify(result)}\n`);
process.exitCode = result.passed ? 0 : 1;
