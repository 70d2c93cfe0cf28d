// The targets, judged on the figures of one run. Each check records what was measured,
// the limit, and whether it was met; a target that could not be measured says why.

import { bundleTargets } from "./bundle_report.mjs";
import { relayTargets } from "./relay_report.mjs";
import { resumeTargets } from "./resume_bench.mjs";
import { inboundTargets } from "./inbound_bench.mjs";
import { outageTargets } from "./outage_bench.mjs";

const STOPSTREAM = ["stopstream-result", "stopstream-iterate"];

function check(list, target, scope, measured, limit, met, unit = "") {
  list.push({ target, scope, measured, limit, unit, met });
}

function throughputTargets(list, groups) {
  for (const g of groups) {
    const floor = g.contenders.floor;
    for (const [name, max] of [["stopstream-result", 1.15], ["stopstream-iterate", 1.3]]) {
      const c = g.contenders[name];
      if (!floor?.ok || !c) continue;
      const target = `${name} time ≤ ${max}× floor`;
      if (!c.ok) check(list, target, g.name, null, max, null, `skipped: ${c.skipped ?? c.error}`);
      else {
        check(
          list,
          target,
          g.name,
          c.ratioToFloor,
          max,
          c.ratioToFloor <= max,
          `× (main-thread CPU ${c.ratioToFloorCpu}×)`,
        );
      }
    }
  }
}

function sdkTargets(list, groups) {
  const big = groups.filter((g) => g.n >= 1_000_000 && g.contenders["openai-sdk"]);
  if (big.length === 0) {
    check(
      list,
      "≥ 4× faster than the openai SDK, ≥ 20× than the AI SDK",
      "1M",
      null,
      null,
      null,
      "not measured in this run (full run only)",
    );
    return;
  }
  for (const g of big) {
    for (const [sdk, min] of [["openai-sdk", 4], ["ai-sdk", 20]]) {
      for (const ours of STOPSTREAM) {
        const ratio = g.ratios[sdk]?.[ours] ?? null;
        const a = g.contenders[sdk];
        const b = g.contenders[ours];
        const cpu = a?.ok && b?.ok
          ? Math.round((a.cpuMs.median / b.cpuMs.median) * 100) / 100
          : null;
        check(
          list,
          `${ours} ≥ ${min}× faster than ${sdk}`,
          g.name,
          ratio,
          min,
          ratio === null ? null : ratio >= min,
          `× (main-thread CPU ${cpu}×)`,
        );
      }
    }
  }
}

function rssTargets(list, groups) {
  const big = groups.filter((g) => g.n >= 1_000_000);
  for (const g of big) {
    const floor = g.contenders.floor;
    if (!floor?.ok) continue;
    // The final text as V8 holds it: two bytes per UTF-16 unit (it has non-Latin-1 characters).
    const textMiB = (g.textLength * 2) / 2 ** 20;
    const limit = Math.round((floor.maxRSSMiB.median + 3 * textMiB) * 10) / 10;
    for (const ours of STOPSTREAM) {
      const c = g.contenders[ours];
      if (!c?.ok) continue;
      const rss = c.maxRSSMiB.median;
      check(list, `${ours} peak RSS ≤ floor + 3× text`, g.name, rss, limit, rss <= limit, "MiB");
    }
  }
}

function interruptTargets(list, interrupt) {
  const raw = interrupt.raw ?? {};
  for (const ours of STOPSTREAM) {
    for (const [phase, cell] of Object.entries(interrupt[ours] ?? {})) {
      if (!cell.ok) continue;
      const base = raw[phase]?.ok ? raw[phase].latencyMs.median : null;
      const diff = base === null ? null : Math.round((cell.latencyMs.median - base) * 1000) / 1000;
      check(
        list,
        `${ours} interrupt median ≤ raw fetch + 0.5 ms`,
        phase,
        diff,
        0.5,
        diff === null ? null : diff <= 0.5,
        "ms over raw",
      );
      const complete = cell.settled === cell.trials;
      check(
        list,
        `${ours} interrupt p99 < 3 ms`,
        phase,
        cell.latencyMs.p99,
        3,
        complete && cell.latencyMs.p99 < 3,
        "ms",
      );
    }
  }
}

function ttfdTargets(list, ttfd) {
  const c = ttfd["stopstream-iterate"];
  if (!c?.ok || !ttfd.raw?.ok) return;
  check(
    list,
    "time to first delta ≤ raw fetch + 0.5 ms (warm median)",
    "loopback",
    c.deltaVsRawMs,
    0.5,
    c.deltaVsRawMs <= 0.5,
    "ms over raw",
  );
}

/** Every target check for a results object. */
export function evaluateTargets(results) {
  const list = [];
  throughputTargets(list, results.throughput);
  sdkTargets(list, results.throughput);
  rssTargets(list, results.throughput);
  interruptTargets(list, results.interrupt);
  ttfdTargets(list, results.ttfd);
  relayTargets(list, results.relay);
  inboundTargets(list, results.inbound, check);
  resumeTargets(list, results.resume, check);
  outageTargets(list, results.outage, check);
  bundleTargets(list, results.bundles);
  return list;
}
