// Profiles the relay Worker's isolate in workerd while it relays, and prints where the time went:
// self time by function and by source file, each native call (a stream read, an enqueue)
// charged to the JS function that made it, bundle positions mapped back to src/.
//
//   npm run build && node bench/relay_profile.mjs [--workload stream|paced|short] [--worker relay|control]
//                                                 [--resumable]
//
//   stream  one 100k-delta stream (--n), written by the upstream in 64 KiB slices: many events
//           per read — the bench's throughput case;
//   short   --n requests (default 2,000) one after another, each a 6-delta answer written at
//           once — the time to first delta case (per-request work);
//   paced   200 concurrent streams (--streams) of 100 deltas, one every 10 ms: one event per
//           read — the load test's case.
// --resumable sends `x-stopstream-resumable: true` (the relay's resumable path, its Durable
// Object in the same isolate). The Worker runs as `npm start` serves it (lib/relay_host.mjs), profiled through its own
// inspector with a 100 µs sampling interval; the .cpuprofile is kept in bench/results/.

import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import floor from "./workers/floor.mjs";
import { context } from "./lib/context.mjs";
import { printWorkerProfile } from "./lib/cpuprofile.mjs";
import { connectInspector, isolateURL } from "./lib/inspector.mjs";
import { mainThreadCpuMs } from "./lib/procfs.mjs";
import { startRelayHost } from "./lib/relay_host.mjs";
import { startServerProcess } from "./lib/spawn.mjs";
import { REQUEST_BODY } from "./lib/streams.mjs";
import { parseArgs } from "./lib/worker.mjs";

const args = parseArgs(process.argv.slice(2));
const workload = args.workload ?? "stream";
const which = args.worker ?? "relay";
// Profiled, 100,000 short requests did not finish: after about 45,000 workerd closed the
// connection. Unprofiled, 55,000 went through and the relay's heap stayed at 2.05 MiB.
const n = Number(args.n ?? (workload === "short" ? 2_000 : 100_000));
const streams = Number(args.streams ?? 200);
const resumable = args.resumable !== undefined;
const headers = resumable ? { "x-stopstream-resumable": "true" } : {};

const server = await startServerProcess();
// Room for the 100k-delta stream under the resumable header (as the resume benchmark).
const host = await startRelayHost(`${server.url}/m/v1`, { MAX_STREAM_BYTES: String(64 << 20) });
const worker = host[which];
const read = (model) =>
  floor.consume(context("openai", `${worker.url}/v1`, globalThis.fetch, {
    body: { ...REQUEST_BODY, model },
    headers,
  }));
try {
  await read("tp.openai.2000.2"); // warm-up
  const inspector = await connectInspector(
    await isolateURL(worker.inspectorPort, which === "relay" ? "stopstream-relay" : "control"),
  );
  await inspector.call("Profiler.enable");
  await inspector.call("Profiler.setSamplingInterval", { interval: 100 });
  await inspector.call("Profiler.start");
  const cpu0 = mainThreadCpuMs(worker.pid);
  const t0 = performance.now();
  let events;
  if (workload === "stream") {
    await read(`tp.openai.${n}.1`);
    events = n + 4;
  } else if (workload === "short") {
    // One request at a time, as the time-to-first-delta benchmark makes them.
    for (let i = 0; i < n; i++) await read("short");
    events = n * 10;
  } else {
    await Promise.all(Array.from({ length: streams }, (_, i) => read(`slow.profile-${i}`)));
    events = streams * 103;
  }
  const wallMs = performance.now() - t0;
  const cpuMs = mainThreadCpuMs(worker.pid) - cpu0;
  const { profile } = await inspector.call("Profiler.stop");
  inspector.close();
  const path = fileURLToPath(
    new URL(
      `./results/${which}-${workload}${resumable ? "-resumable" : ""}.cpuprofile`,
      import.meta.url,
    ),
  );
  writeFileSync(path, JSON.stringify(profile));
  process.stdout.write(
    `${which}, ${workload}: ${events.toLocaleString("en")} events in ${Math.round(wallMs)} ms; ` +
      `workerd main thread ${Math.round(cpuMs)} ms CPU = ${
        (cpuMs / events * 1000).toFixed(2)
      } µs/event\n`,
  );
  printWorkerProfile(path, worker.scriptPath ? `${worker.scriptPath}.map` : null);
  process.stdout.write(`\nprofile: ${path}\n`);
} finally {
  await host.stop();
  server.stop();
}
