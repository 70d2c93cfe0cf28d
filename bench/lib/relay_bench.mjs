// The relay benchmark, parent side: starts the relay Worker (lib/relay_host.mjs), runs the
// relay worker tasks against it and against the same upstream directly, and summarizes.

import { startRelay } from "./relay_host.mjs";
import { runContender } from "./spawn.mjs";
import { latency, median, round, spread } from "./stats.mjs";

function r3(obj) {
  return obj && Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, round(v)]));
}

function summarizeLoad(load) {
  const waves = load.waves.map((w) => {
    const closes = w.upstreamCloseAfterDisconnectMs;
    return {
      wave: w.wave,
      callers: w.callers,
      ...(w.firstFailure ? { firstFailure: w.firstFailure } : {}),
      upstreamRequests: w.upstreamRequests,
      upstreamCompleted: w.upstreamCompleted,
      upstreamCancelled: w.upstreamCancelled,
      upstreamOpenAtEnd: w.upstreamOpenAtEnd,
      allClosedAfterMs: w.allClosedAfterMs,
      upstreamCloseAfterDisconnectMs: r3(latency(closes)),
      upstreamFinishedBeforeDisconnect: w.upstreamFinishedBeforeDisconnect,
      upstreamRanToEndAfterDisconnect: w.upstreamRanToEndAfterDisconnect,
      workerdRSSMiB: w.workerdRSSMiB,
      proxyRSSMiB: w.proxyRSSMiB,
      heapAfterGCMiB: w.heapAfterGCMiB,
    };
  });
  const heap = waves.map((w) => w.heapAfterGCMiB).filter((v) => v !== null && v !== undefined);
  return {
    streams: load.streams,
    disconnecting: Math.round(load.streams * load.dropShare),
    rssBeforeMiB: load.rssBeforeMiB,
    heapBeforeMiB: load.heapBeforeMiB,
    waves,
    allUpstreamClosed: waves.every((w) => w.upstreamOpenAtEnd === 0),
    // Flat: the relay isolate's JS heap after a full GC, from the second wave on (the first
    // holds warm-up allocations), grows less than 10 %. Raw RSS is reported, not judged: right
    // after a wave it holds uncollected garbage and workerd's own native growth (see notes.md).
    heapFlat: heap.length < 2 ? null : heap.at(-1) <= heap[1] * 1.1,
  };
}

/** Runs the relay benchmark; resolves with its summary (or `{ status: "failed", error }`). */
export async function relayBench(plan, server, log) {
  let relay;
  try {
    relay = await startRelay(`${server.url}/m/v1`);
  } catch (error) {
    return { status: "failed", error: String(error.message ?? error) };
  }
  const common = ["--server", server.url, "--relay", relay.url];
  try {
    const out = { status: "measured", runtime: "wrangler unstable_startWorker, inspector off" };
    const ttfd = await runContender("relay", [
      "--task",
      "relay-ttfd",
      "--trials",
      plan.trials,
      ...common,
    ]);
    if (!ttfd.ok) throw new Error(ttfd.error);
    out.ttfd = { direct: r3(latency(ttfd.direct)), relay: r3(latency(ttfd.relay)) };
    out.ttfd.overheadMs = round(median(ttfd.relay) - median(ttfd.direct));
    log(`  relay · ttfd: direct ${out.ttfd.direct.median} ms, relay ${out.ttfd.relay.median} ms`);
    const tp = await runContender("relay", [
      "--task",
      "relay-throughput",
      "--n",
      plan.n,
      "--runs",
      plan.runs,
      ...common,
    ]);
    if (!tp.ok) throw new Error(tp.error);
    out.throughput = {
      n: tp.n,
      events: tp.events,
      bytes: tp.bytes,
      direct: r3(spread(tp.wallMs.direct)),
      relay: r3(spread(tp.wallMs.relay)),
      ratio: round(median(tp.wallMs.relay) / median(tp.wallMs.direct)),
    };
    log(`  relay · throughput: ${out.throughput.ratio}× direct`);
    const load = await runContender("relay", [
      "--task",
      "relay-load",
      "--streams",
      plan.streams,
      "--waves",
      plan.waves,
      "--workerd",
      relay.workerd ?? 0,
      "--proxy",
      relay.proxyWorkerd ?? 0,
      ...(relay.inspector ? ["--inspector", relay.inspector] : []),
      ...common,
    ]);
    if (!load.ok) throw new Error(load.error);
    out.load = summarizeLoad(load);
    log(`  relay · load: ${plan.waves} waves of ${plan.streams}`);
    return out;
  } catch (error) {
    return { status: "failed", error: String(error.message ?? error) };
  } finally {
    await relay.stop();
  }
}

/** The relay's tables (empty unless it was measured). */
export function relayTables(results) {
  const r = results.relay;
  if (r?.status !== "measured") return [];
  const ms = (v) => (v === null || v === undefined ? "—" : String(v));
  const tables = [{
    title: `Relay vs direct — same loopback upstream, eventsource-parser consumer`,
    header: ["measure", "direct", "through the relay", "relay − / ÷ direct"],
    rows: [
      [
        "time to first delta, median ms",
        ms(r.ttfd.direct.median),
        ms(r.ttfd.relay.median),
        `+${r.ttfd.overheadMs} ms`,
      ],
      ["time to first delta, p99 ms", ms(r.ttfd.direct.p99), ms(r.ttfd.relay.p99), ""],
      [
        `${r.throughput.n.toLocaleString("en")} deltas, median ms`,
        ms(r.throughput.direct.median),
        ms(r.throughput.relay.median),
        `${r.throughput.ratio}×`,
      ],
    ],
  }];
  const l = r.load;
  tables.push({
    title: `Relay under load — ${l.streams} concurrent streams per wave, ${l.disconnecting} ` +
      `callers disconnecting mid-stream (before: relay JS heap ${
        l.heapBeforeMiB ?? "—"
      } MiB, relay ` +
      `workerd RSS ${l.rssBeforeMiB} MiB)`,
    header: [
      "wave",
      "callers complete / aborted / failed",
      "upstream requests",
      "open at end",
      "disconnects: upstream cut / had already finished / ran to its end",
      "upstream cut after disconnect (median / max ms)",
      "relay JS heap after full GC MiB",
      "relay workerd RSS MiB",
      "wrangler proxy RSS MiB",
    ],
    rows: l.waves.map((w) => [
      String(w.wave + 1),
      `${w.callers.complete} / ${w.callers.aborted} / ${w.callers.failed + w.callers.incomplete}`,
      String(w.upstreamRequests),
      String(w.upstreamOpenAtEnd),
      `${
        w.upstreamCloseAfterDisconnectMs?.n ?? 0
      } / ${w.upstreamFinishedBeforeDisconnect} / ${w.upstreamRanToEndAfterDisconnect}`,
      w.upstreamCloseAfterDisconnectMs
        ? `${w.upstreamCloseAfterDisconnectMs.median} / ${w.upstreamCloseAfterDisconnectMs.max}`
        : "—",
      ms(w.heapAfterGCMiB),
      ms(w.workerdRSSMiB),
      ms(w.proxyRSSMiB),
    ]),
  });
  return tables;
}
