// The relay's time to first delta on its own (not part of `npm run bench`, which measures it in
// its relay section): the benchmark's loopback upstream, the relay and the pass-through control
// Worker as `npm start` serves them, and rounds of the same trials the benchmark takes (direct,
// control and relay in turns). For checking a change to the relay's request path in a minute:
// run it on the old and the new build in turns, a few rounds each.
//
//   npm run build && node bench/relay_ttfd.mjs [--rounds 3] [--trials 300]

import { startRelayHost } from "./lib/relay_host.mjs";
import { runContender, startServerProcess } from "./lib/spawn.mjs";
import { median } from "./lib/stats.mjs";
import { parseArgs } from "./lib/worker.mjs";

const args = parseArgs(process.argv.slice(2));
const server = await startServerProcess();
const host = await startRelayHost(`${server.url}/m/v1`);
try {
  for (let round = 0; round < Number(args.rounds ?? 3); round++) {
    const t = await runContender("relay", [
      ...["--task", "relay-ttfd", "--trials", String(args.trials ?? 300)],
      ...["--server", server.url, "--relay", host.relay.url, "--control", host.control.url],
    ]);
    if (!t.ok) throw new Error(t.error);
    const ms = (name) => median(t[name]).toFixed(3);
    const over = (median(t.relay) - median(t.control)).toFixed(3);
    process.stdout.write(
      `medians: direct ${ms("direct")} ms, control ${ms("control")} ms, relay ${ms("relay")} ms` +
        ` (relay − control ${over} ms)\n`,
    );
  }
} finally {
  await host.stop();
  server.stop();
}
