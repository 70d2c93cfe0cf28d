// The inbound-routes benchmark, parent side (issue #28): every case of lib/inbound_streams.mjs
// (`/v1/messages` and `/v1/responses`, passed through and translated, next to the chat route)
// in a fresh process per case and round (bench/workers/inbound.mjs), rounds interleaved with
// the order rotating; then its summary, table and targets. Ratios divide median times of the
// same run by the chat route's.

import { CASES } from "./inbound_streams.mjs";
import { runContender } from "./spawn.mjs";
import { latency, median, round, spread } from "./stats.mjs";

/** What each non-chat case's N-delta time may be, at most, in chat-route times. */
const LIMITS = { "pass-through": 1.2, translated: 2 };

function r3(obj) {
  return obj && Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, round(v)]));
}

function rotate(list, by) {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

function summarizeCase(c, records) {
  const { id, route, upstream, kind } = c;
  const bad = records.find((r) => !r.ok);
  if (bad || records.length === 0) {
    return { id, route, upstream, kind, ok: false, error: bad?.error ?? "no runs" };
  }
  return {
    id,
    route,
    upstream,
    kind,
    ok: true,
    bytes: records[0].bytes,
    ttfdMs: r3(latency(records.flatMap((r) => r.ttfdMs))),
    wallMs: r3(spread(records.map((r) => r.wallMs))),
    cpuMs: r3(spread(records.map((r) => r.cpuMs))),
    runQueueWaitMs: round(median(records.map((r) => r.waitMs))),
    runsMs: records.map((r) => round(r.wallMs)),
  };
}

/** Runs the inbound-routes benchmark; resolves with its summary. */
export async function inboundBench(plan, log) {
  const records = Object.fromEntries(CASES.map((c) => [c.id, []]));
  for (let round = 0; round < plan.runs; round++) {
    for (const c of rotate(CASES, round)) {
      const record = await runContender("inbound", [
        ...["--case", c.id, "--n", plan.n, "--trials", plan.trials],
      ]);
      records[c.id].push(record);
      const shown = record.ok
        ? `first delta ${median(record.ttfdMs).toFixed(2)} ms, ${record.wallMs.toFixed(0)} ms`
        : "ERROR";
      log(`  inbound · round ${round + 1}/${plan.runs} · ${c.route} ${c.kind}: ${shown}`);
      if (!record.ok) log(`    ${record.error}`);
    }
  }
  const cases = CASES.map((c) => summarizeCase(c, records[c.id]));
  const chat = cases.find((c) => c.id === "chat");
  for (const c of cases) {
    if (!c.ok || !chat.ok) continue;
    c.ratioToChat = round(c.wallMs.median / chat.wallMs.median);
    c.ratioToChatCpu = round(c.cpuMs.median / chat.cpuMs.median);
    c.ttfdOverChatMs = round(c.ttfdMs.median - chat.ttfdMs.median);
  }
  const failed = cases.filter((c) => !c.ok);
  return {
    status: failed.length === cases.length ? "failed" : "measured",
    ...(failed.length === cases.length ? { error: failed[0].error.split("\n")[0] } : {}),
    runtime: `Node ${process.versions.node}, the relay in the measuring process`,
    n: plan.n,
    runs: plan.runs,
    trials: plan.trials,
    cases,
  };
}

const show = (v) =>
  v === null || v === undefined
    ? "—"
    : v >= 100
    ? v.toFixed(0)
    : v >= 10
    ? v.toFixed(1)
    : v.toFixed(2);
const times = (v) => (v === null || v === undefined ? "—" : `${v.toFixed(2)}×`);

/** The inbound-routes table (empty unless it was measured). */
export function inboundTables(results) {
  const r = results.inbound;
  if (r?.status !== "measured") return [];
  const deltas = `${r.n.toLocaleString("en")} deltas`;
  return [{
    title: "Inbound routes — the relay in-process in Node (`createRelay`), its upstream an " +
      "in-process `fetch` answering a prepared body, the answer read raw: `/v1/messages` and " +
      `\`/v1/responses\` next to the chat route (${deltas}, ${r.runs} round${
        r.runs === 1 ? "" : "s"
      }, same run)`,
    header: [
      "route",
      "upstream",
      "",
      "first delta, median ms",
      "p90",
      `${deltas}, median ms`,
      "min–max ms",
      "× chat route",
      "× chat route (main-thread CPU)",
    ],
    rows: r.cases.map((c) =>
      c.ok
        ? [
          c.route,
          c.upstream,
          c.kind,
          show(c.ttfdMs.median),
          show(c.ttfdMs.p90),
          show(c.wallMs.median),
          `${show(c.wallMs.min)}–${show(c.wallMs.max)}`,
          times(c.ratioToChat),
          times(c.ratioToChatCpu),
        ]
        : [c.route, c.upstream, c.kind, `error: ${c.error.split("\n")[0]}`, "", "", "", "", ""]
    ),
  }];
}

const SCOPE = "inbound (Node)";

/**
 * Adds the inbound-route targets to `list`, through targets.mjs's
 * `check(list, target, scope, measured, limit, met, unit)`.
 */
export function inboundTargets(list, r, check) {
  if (r?.status !== "measured") {
    const why = `not measured: ${r?.error ?? r?.status ?? "not run"}`;
    check(
      list,
      "inbound routes: pass-through ≤ 1.2×, translated ≤ 2× the chat route",
      SCOPE,
      null,
      null,
      null,
      why,
    );
    return;
  }
  const chat = r.cases.find((c) => c.id === "chat");
  for (const c of r.cases) {
    const limit = LIMITS[c.kind];
    if (limit === undefined) continue;
    const target = `${c.route} ${c.kind} (${c.upstream} upstream): ` +
      `${r.n.toLocaleString("en")} deltas in ≤ ${limit}× the chat route's time`;
    if (!c.ok || !chat?.ok) {
      const why = `not measured: ${(c.ok ? chat?.error : c.error)?.split("\n")[0]}`;
      check(list, target, SCOPE, null, limit, null, why);
      continue;
    }
    const unit = `× (main-thread CPU ${c.ratioToChatCpu}×)`;
    check(list, target, SCOPE, c.ratioToChat, limit, c.ratioToChat <= limit, unit);
  }
}
