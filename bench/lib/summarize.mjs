// Turns raw child records into the figures and ratios stored in latest.json.

import { latency, median, round, spread } from "./stats.mjs";

const MiB = 1024;

function roundSpread(s, digits = 3) {
  return s &&
    { min: round(s.min, digits), median: round(s.median, digits), max: round(s.max, digits) };
}

/** One throughput group: per-contender spreads, ratio to the floor, and every pairwise ratio. */
export function summarizeGroup(group, name, records) {
  const out = {
    name,
    workload: group.workload,
    n: group.n,
    delivery: group.delivery,
    runs: group.runs,
    contenders: {},
    ratios: {},
  };
  for (const contender of group.contenders) {
    const runs = records[contender] ?? [];
    const good = runs.filter((r) => r.ok);
    const bad = runs.find((r) => !r.ok);
    if (good.length === 0 || bad) {
      out.contenders[contender] = bad?.skipped
        ? { ok: false, skipped: bad.skipped }
        : { ok: false, error: bad?.error ?? "no runs" };
      continue;
    }
    const first = good[0];
    out.bytes = first.bytes;
    out.events = first.events;
    out.textLength = first.textLength;
    out.contenders[contender] = {
      ok: true,
      verified: first.verified,
      wallMs: roundSpread(spread(good.map((r) => r.wallMs))),
      cpuMs: roundSpread(spread(good.map((r) => r.cpuMs))),
      // How long the main thread waited for a core held by other processes (noise).
      runQueueWaitMs: roundSpread(spread(good.map((r) => r.waitMs ?? 0))),
      eventsPerSec: roundSpread(spread(good.map((r) => r.events / (r.wallMs / 1000))), 0),
      MBps: roundSpread(spread(good.map((r) => r.bytes / 1e6 / (r.wallMs / 1000))), 1),
      maxRSSMiB: roundSpread(spread(good.map((r) => r.maxRSSKiB / MiB)), 1),
      rssBeforeMiB: round(median(good.map((r) => r.rssBeforeKiB / MiB)), 1),
      runsMs: good.map((r) => round(r.wallMs)),
    };
  }
  const ok = Object.entries(out.contenders).filter(([, c]) => c.ok);
  // Ratios of median wall times within this run: ratios[a][b] = a's time / b's time.
  for (const [a, ca] of ok) {
    out.ratios[a] = {};
    for (const [b, cb] of ok) out.ratios[a][b] = round(ca.wallMs.median / cb.wallMs.median);
    const floor = out.contenders.floor;
    if (floor?.ok) {
      ca.ratioToFloor = round(ca.wallMs.median / floor.wallMs.median);
      // Best-of-runs ratio: less sensitive to other load on the machine than the median.
      ca.ratioToFloorBest = round(ca.wallMs.min / floor.wallMs.min);
      ca.ratioToFloorCpu = round(ca.cpuMs.median / floor.cpuMs.median);
    }
  }
  return out;
}

/** One interrupt cell (contender × phase). */
export function summarizeInterrupt(record) {
  if (!record.ok) return record.skipped ? { ok: false, skipped: record.skipped } : record;
  const r = (s) => s && Object.fromEntries(Object.entries(s).map(([k, v]) => [k, round(v)]));
  return {
    ok: true,
    trials: record.trials,
    settled: record.latenciesMs.length,
    latencyMs: r(latency(record.latenciesMs)),
    serverCloseMs: r(latency(record.closeLatenciesMs)),
    endings: record.endings,
    batched: record.batched,
  };
}

/** Time to first delta per contender, with the difference to raw fetch's median. */
export function summarizeTtfd(records) {
  const out = {};
  for (const [contender, record] of Object.entries(records)) {
    if (!record.ok) {
      out[contender] = record.skipped ? { ok: false, skipped: record.skipped } : record;
      continue;
    }
    const l = latency(record.samplesMs);
    out[contender] = {
      ok: true,
      ...Object.fromEntries(Object.entries(l).map(([k, v]) => [k, round(v)])),
    };
  }
  const raw = out.raw?.ok ? out.raw.median : null;
  for (const c of Object.values(out)) {
    if (c.ok && raw !== null) c.deltaVsRawMs = round(c.median - raw);
  }
  return out;
}
