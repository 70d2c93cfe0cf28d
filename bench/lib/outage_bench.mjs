// The outage benchmark, parent side (issue #13: upstream cooldown and the retry budget). Starts
// two relays through `npm start` (lib/relay_process.mjs) on the loopback upstream — one with
// its primary on /p and a fallback on /f, one with /p alone — runs bench/workers/outage.mjs
// against them, and turns what it measured into the figures, tables and target checks of
// BENCHMARKS.md.

import { startRelayProcess } from "./relay_process.mjs";
import { runContender } from "./spawn.mjs";
import { latency, median, round } from "./stats.mjs";

/** Callers the relays tell apart (src/relay/caller.ts): one alone never cools an upstream down. */
const KEYS = Array.from({ length: 8 }, (_, i) => `bench-caller-${i}`).join(",");

/** The relay's defaults, which the bound is stated in (src/core/retry_budget.ts, src/relay/). */
const BUDGET = { ratio: 0.2, minPerSecond: 10, maxRetries: 2 };

const show = (v) => (v === null || v === undefined ? "—" : String(v));

function r3(obj) {
  return obj && Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, round(v)]));
}

function summarize(record) {
  const { requests, direct, upstreamRequests } = record.cooldown;
  // Engaged: from the first request that went to the fallback alone.
  const engagedAt = requests.findIndex((r) => r.attempts === 1 && r.upstream === "1");
  const after = engagedAt < 0 ? [] : requests.slice(engagedAt);
  const relayTtfd = after.map((r) => r.ttfd).filter((v) => v !== null);
  const directTtfd = direct.slice(Math.max(0, engagedAt)).filter((v) => v !== null);
  const total = upstreamRequests.primary + upstreamRequests.fallback;
  const cooldown = {
    callers: requests.length,
    answered: requests.filter((r) => r.ok).length,
    upstreamRequests,
    perCaller: round(total / requests.length),
    engagedAfter: engagedAt < 0 ? null : engagedAt,
    perCallerEngaged: after.length === 0
      ? null
      : round(after.reduce((n, r) => n + r.attempts, 0) / after.length),
    ttfd: {
      relay: r3(latency(relayTtfd)),
      straightToFallback: r3(latency(directTtfd)),
      relayHealthy: r3(latency(record.reference.relay)),
      directHealthy: r3(latency(record.reference.direct)),
    },
  };
  cooldown.ttfd.overStraightMs = round(median(relayTtfd) - median(directTtfd));
  const o = record.outage;
  const sent = o.upstreamRequests.primary;
  const bound = (1 + BUDGET.ratio) * o.calls + BUDGET.minPerSecond * (1 + o.seconds);
  const outage = {
    calls: o.calls,
    concurrency: o.concurrency,
    seconds: round(o.seconds),
    answered: o.answered,
    upstreamRequests: sent,
    perCaller: round(sent / o.calls),
    bound: round(bound),
    boundPerCaller: round(bound / o.calls),
    withoutPerCaller: 1 + BUDGET.maxRetries, // every call retried in full
  };
  const b = record.bothDown;
  const bothDown = {
    calls: b.calls,
    seconds: round(b.seconds),
    answered: b.answered,
    upstreamRequests: b.upstreamRequests,
    perCaller: round((b.upstreamRequests.primary + b.upstreamRequests.fallback) / b.calls),
    withoutPerCaller: 2 * (1 + BUDGET.maxRetries), // both upstreams, each retried in full
  };
  return { status: "measured", budget: BUDGET, cooldown, outage, bothDown };
}

/** Runs the outage benchmark; resolves with its summary (or `{ status: "failed", error }`). */
export async function outageBench(plan, server, log) {
  const relays = [];
  try {
    const primary = { UPSTREAM_BASE_URL: `${server.url}/p/v1`, RELAY_KEYS: KEYS };
    const fallbacks = { FALLBACKS: JSON.stringify([{ baseURL: `${server.url}/f/v1` }]) };
    // The sustained outage gets a relay of its own: one upstream (so every request it counts
    // is a first attempt or a retry), and a fresh isolate whose budget no earlier call fed.
    for (const vars of [{ ...primary, ...fallbacks }, primary]) {
      relays.push(await startRelayProcess({ runner: "npm-start", vars }));
    }
    const record = await runContender("outage", [
      ...["--server", server.url, "--relay", relays[0].url, "--outage-relay", relays[1].url],
      ...["--requests", plan.requests, "--reference", plan.reference],
      ...["--outage-calls", plan.outageCalls, "--concurrency", plan.concurrency, "--keys", KEYS],
    ]);
    if (!record.ok) throw new Error(record.error);
    const out = summarize(record);
    const c = out.cooldown;
    log(
      `  outage · cooldown: ${c.perCaller} upstream requests per caller request, time to first ` +
        `delta ${c.ttfd.relay?.median} ms vs ${c.ttfd.straightToFallback?.median} ms straight to the fallback`,
    );
    log(
      `  outage · sustained: ${out.outage.perCaller} upstream requests per caller request ` +
        `(bound ${out.outage.boundPerCaller}); both down: ${out.bothDown.perCaller}`,
    );
    return out;
  } catch (error) {
    return { status: "failed", error: String(error.message ?? error) };
  } finally {
    await Promise.all(relays.map((relay) => relay.stop()));
  }
}

/** The outage tables (empty unless measured). */
export function outageTables(results) {
  const r = results.outage;
  if (r?.status !== "measured") return [];
  const c = r.cooldown;
  const t = c.ttfd;
  const o = r.outage;
  return [
    {
      title: `Upstream cooldown — the relay (npm start) with its primary answering 503 and a ` +
        `healthy fallback, ${c.callers} sequential streaming requests`,
      header: ["measure", "value"],
      rows: [
        ["answered", `${c.answered} / ${c.callers}`],
        [
          "upstream requests (primary + fallback)",
          `${c.upstreamRequests.primary} + ${c.upstreamRequests.fallback}`,
        ],
        ["upstream requests per caller request, all requests", show(c.perCaller)],
        ["cooldown engaged after (requests)", show(c.engagedAfter)],
        ["upstream requests per caller request, once engaged", show(c.perCallerEngaged)],
        [
          "time to first delta once engaged, median / p99 ms",
          `${show(t.relay?.median)} / ${show(t.relay?.p99)}`,
        ],
        [
          "straight to the fallback's server (in turns), median / p99 ms",
          `${show(t.straightToFallback?.median)} / ${show(t.straightToFallback?.p99)}`,
        ],
        [
          "nothing down: relay / direct, median ms",
          `${show(t.relayHealthy?.median)} / ${show(t.directHealthy?.median)}`,
        ],
      ],
    },
    {
      title: `Retry budget — sustained outage: the relay's one upstream answers 503, ${o.calls} ` +
        `streaming requests, ${o.concurrency} at a time, relay defaults (ratio ${r.budget.ratio}, ` +
        `minPerSecond ${r.budget.minPerSecond}, maxRetries ${r.budget.maxRetries})`,
      header: ["measure", "value"],
      rows: [
        ["answered", `${o.answered} / ${o.calls}`],
        ["took, s", show(o.seconds)],
        ["upstream requests", show(o.upstreamRequests)],
        ["upstream requests per caller request", show(o.perCaller)],
        [
          "bound: (1 + ratio) × callers + minPerSecond × (1 + s), per caller request",
          show(o.boundPerCaller),
        ],
        ["without the budget", show(o.withoutPerCaller)],
        [
          `both upstreams down (the cooldown relay, after the phase above): upstream requests ` +
          `per caller request (primary + fallback)`,
          `${show(r.bothDown.perCaller)} (${r.bothDown.upstreamRequests.primary} + ` +
          `${r.bothDown.upstreamRequests.fallback} for ${r.bothDown.calls}; without budget or ` +
          `cooldown: ${r.bothDown.withoutPerCaller})`,
        ],
      ],
    },
  ];
}

const SCOPE = "relay outage";

/** The cooldown and budget targets (`check` as in targets.mjs). */
export function outageTargets(list, r, check) {
  if (r?.status !== "measured") {
    const why = `not measured: ${r?.error ?? r?.status ?? "not run"}`;
    return check(list, "cooldown and retry budget", SCOPE, null, null, null, why);
  }
  const c = r.cooldown;
  check(
    list,
    `cooldown: upstream requests per caller request ≤ 1.2 (${c.callers} sequential, primary down)`,
    SCOPE,
    c.perCaller,
    1.2,
    c.perCaller <= 1.2,
    "per caller request",
  );
  const over = c.ttfd.overStraightMs;
  check(
    list,
    "cooldown engaged: median time to first delta ≤ straight to the fallback + 20 ms",
    SCOPE,
    over,
    20,
    over !== null && !Number.isNaN(over) && over <= 20,
    "ms over straight to the fallback",
  );
  const o = r.outage;
  check(
    list,
    "sustained outage: upstream requests ≤ (1 + ratio) × caller requests + the floor",
    SCOPE,
    o.perCaller,
    o.boundPerCaller,
    o.perCaller <= o.boundPerCaller,
    "per caller request",
  );
}
