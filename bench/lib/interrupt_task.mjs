// Interrupt latency, child side: time from `controller.abort()` to the contender's consuming
// loop/promise settling, in one of three phases, against the loopback server:
//   headers — the server accepted the request and never answers;
//   mid     — the server sent headers and three deltas, then went quiet (parked read);
//   backoff — every attempt gets a 503, so the client is sleeping before its retry.
// Every contender gets the same hooked `fetch`, which schedules the abort from what it sees,
// so the trigger is identical whatever the contender does around it.
// "Server sees close": the server's socket `close` time minus the abort time, both taken
// from `process.hrtime` (CLOCK_MONOTONIC, shared by the two processes on Linux).

import { context } from "./context.mjs";

const SCENARIO = { headers: "hang", mid: "park", backoff: "e503" };
// Delay from the phase's trigger to the abort: long enough to be inside the phase.
const ABORT_AFTER_MS = { headers: 5, mid: 5, backoff: 20 };
// A contender that waits this long is bound by its own timer, not by the event loop.
const SLOW_MS = 50;
const GUARD_MS = 15_000;

function describe(error) {
  if (error === undefined) return "ended silently";
  const name = error?.name ?? typeof error;
  const ctor = error?.constructor?.name;
  return ctor && ctor !== name ? `threw ${name} (${ctor})` : `threw ${name}`;
}

async function trial(contender, args, phase, index) {
  const id = `${contender.name}-${phase}-${index}-${process.pid}`;
  const baseURL = `${args.server}/s/${SCENARIO[phase]}.${id}/v1`;
  const controller = new AbortController();
  let t0 = 0;
  let abortAtNs = 0n;
  let armed = false;
  const abort = () => {
    abortAtNs = process.hrtime.bigint();
    t0 = performance.now();
    controller.abort();
  };
  const arm = () => {
    if (!armed) setTimeout(abort, ABORT_AFTER_MS[phase]);
    armed = true;
  };
  const hooked = async (input, init) => {
    if (phase === "headers") arm();
    const response = await globalThis.fetch(input, init);
    if (phase === "mid" || (phase === "backoff" && response.status === 503)) arm();
    return response;
  };
  const ctx = context("openai", baseURL, hooked, { signal: controller.signal });
  const settled = await new Promise((resolve) => {
    const guard = setTimeout(() => resolve({ end: "still running after 15 s", t1: -1 }), GUARD_MS);
    contender.consume(ctx).then(
      (r) => resolve({ end: describe(undefined), t1: performance.now(), text: r?.text }),
      (e) => resolve({ end: describe(e), t1: performance.now(), error: e }),
    ).finally(() => clearTimeout(guard));
  });
  if (!armed || t0 === 0) {
    return { id, end: `settled before the abort: ${settled.end}`, latencyMs: null, abortAtNs };
  }
  const latencyMs = settled.t1 < 0 ? null : settled.t1 - t0;
  return { id, end: settled.end, latencyMs, abortAtNs };
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Splits contenders into those that can run `task` and skip records for the others. */
export async function usable(contenders, task) {
  const active = [];
  const results = {};
  for (const c of contenders) {
    const why = c.unavailable ?? await c.supports?.("openai", task);
    if (typeof why === "string") results[c.name] = { ok: false, skipped: why };
    else active.push(c);
  }
  return { active, results };
}

function summarize(records, closes, trials, batched) {
  const endings = {};
  const latencies = [];
  const closeLatencies = [];
  for (const r of records) {
    endings[r.end] = (endings[r.end] ?? 0) + 1;
    if (r.latencyMs !== null) latencies.push(r.latencyMs);
    const closedAt = closes[r.id]?.ns;
    if (closedAt !== undefined && r.abortAtNs !== 0n) {
      closeLatencies.push(Number(BigInt(closedAt) - r.abortAtNs) / 1e6);
    }
  }
  return {
    ok: true,
    trials,
    batched,
    latenciesMs: latencies,
    closeLatenciesMs: closeLatencies,
    endings,
  };
}

/**
 * Runs `--trials` interrupt trials of `--phase` per contender, taking turns trial by trial.
 * A contender whose first ten trials show it waits out a timer finishes its remaining trials
 * ten at a time after the others (its latency is the timer's, not the event loop's).
 */
export async function runInterrupt(contenders, args) {
  const phase = args.phase;
  if (!SCENARIO[phase]) return { ok: false, error: `unknown phase: ${phase}` };
  const trials = Number(args.trials ?? 100);
  const warmup = Number(args.warmup ?? 3);
  const { active, results } = await usable(contenders, "interrupt");
  for (const c of active) {
    for (let i = 0; i < warmup; i++) await trial(c, args, phase, `w${i}`);
  }
  const records = new Map(active.map((c) => [c, []]));
  const timerBound = new Set();
  for (let i = 0; i < trials; i++) {
    for (let k = 0; k < active.length; k++) {
      const c = active[(i + k) % active.length];
      if (!timerBound.has(c)) records.get(c).push(await trial(c, args, phase, i));
    }
    if (i !== 9) continue;
    for (const c of active) {
      if (median(records.get(c).map((r) => r.latencyMs ?? 0)) > SLOW_MS) timerBound.add(c);
    }
  }
  for (const c of timerBound) {
    const list = records.get(c);
    while (list.length < trials) {
      const batch = [];
      for (let k = list.length; k < Math.min(list.length + 10, trials); k++) {
        batch.push(trial(c, args, phase, k));
      }
      list.push(...await Promise.all(batch));
    }
  }
  const ids = [...records.values()].flat().map((r) => r.id);
  const closes = phase === "backoff" ? {} : await (await globalThis.fetch(`${args.server}/closes`, {
    method: "POST",
    body: JSON.stringify(ids),
  })).json();
  for (const c of active) {
    results[c.name] = summarize(records.get(c), closes, trials, timerBound.has(c));
  }
  return { ok: true, phase, results };
}
