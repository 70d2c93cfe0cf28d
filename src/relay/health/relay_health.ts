// The Durable Object behind `HEALTH`, one per relay configuration: every isolate's call outcomes,
// counted with cooldown.ts's rules, so a fleet learns of an outage once.

import { type Outcome, UpstreamCooldowns, UpstreamRoute } from "../cooldown.ts";
import { errorResponse, invalidRequest } from "../error_response.ts";

/** What an isolate sends: its configuration's shape and the outcomes it saw since last time. */
export interface HealthReport {
  upstreams: number;
  failures: number;
  cooldownMs: number;
  /** `[upstream index, outcome, caller hash, how long ago (ms)]` */
  outcomes: Array<[number, Outcome, string, number]>;
}

/** The answer: per upstream, how long it is still skipped (ms, 0: in service). */
export interface HealthState {
  remainingMs: number[];
}

const OUTCOMES: ReadonlySet<string> = new Set<Outcome>(["success", "failure", "neutral"]);

/**
 * The Durable Object class of the `HEALTH` binding (SQLite-backed, state in memory: a cooldown
 * lasts seconds, an evicted object simply starts afresh). Export it from your Worker's entry.
 *
 * @example
 * ```ts
 * export { RelayHealth } from "stopstream/hono";
 * ```
 */
export class RelayHealth {
  #cooldowns: UpstreamCooldowns | undefined;
  #shape = "";

  /** Called by the runtime; neither the state nor `env` is used. */
  constructor(_ctx?: unknown, _env?: unknown) {}

  /** `POST /report` with a {@linkcode HealthReport}; answers a {@linkcode HealthState}. */
  async fetch(request: Request): Promise<Response> {
    const report = parseReport(await request.text());
    if (report === undefined) return badReport();
    const shape = `${report.upstreams}/${report.failures}/${report.cooldownMs}`;
    // Another configuration (a redeploy with other settings) starts a fresh count.
    if (this.#cooldowns === undefined || shape !== this.#shape) {
      this.#shape = shape;
      this.#cooldowns = new UpstreamCooldowns(report.upstreams, report);
    }
    const cooldowns = this.#cooldowns;
    const now = Date.now();
    for (const [index, outcome, caller, ageMs] of report.outcomes) {
      // A success from before the cooldown opened (sent late, batched) says nothing of now.
      const opened = now + cooldowns.remainingMs(index) - report.cooldownMs;
      if (outcome === "success" && cooldowns.remainingMs(index) > 0 && now - ageMs <= opened) {
        continue;
      }
      // Told apart by caller, as in an isolate: one caller alone never opens a cooldown.
      cooldowns.record(index, outcome, new UpstreamRoute(cooldowns, [], caller || undefined));
    }
    const state: HealthState = {
      remainingMs: Array.from({ length: report.upstreams }, (_, i) => cooldowns.remainingMs(i)),
    };
    return Response.json(state);
  }
}

function parseReport(text: string): HealthReport | undefined {
  let report: HealthReport;
  try {
    report = JSON.parse(text) as HealthReport;
  } catch {
    return undefined;
  }
  const { upstreams, failures, cooldownMs, outcomes } = report ?? {};
  const count = (n: unknown, min: number): boolean => Number.isSafeInteger(n) && Number(n) >= min;
  if (!count(upstreams, 1) || !count(failures, 0) || !count(cooldownMs, 1)) return undefined;
  if (!Array.isArray(outcomes)) return undefined;
  const valid = outcomes.every((entry) =>
    Array.isArray(entry) && count(entry[0], 0) && entry[0] < upstreams &&
    OUTCOMES.has(entry[1]) && typeof entry[2] === "string" && count(entry[3], 0)
  );
  return valid ? report : undefined;
}

function badReport(): Response {
  const message = "A health report must be JSON: {upstreams, failures, cooldownMs, outcomes}.";
  return errorResponse(invalidRequest(400, message, "invalid_health_report"));
}
