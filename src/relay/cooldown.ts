/**
 * Upstream cooldown, per isolate (no external store): an upstream whose calls failed with a
 * retryable error `failures` times in a row, within 30 s, is skipped for `cooldownMs` — calls
 * go straight to the next upstream instead of paying for its retries. When the cooldown is
 * over, one call probes it (the others still skip it): success puts it back in service, a
 * failure cools it down again. When every upstream is cooling down, a call goes to the one
 * whose cooldown ends first rather than failing untried.
 *
 * A call's outcome for each upstream it tried is read when the call ends: the upstream that
 * answered succeeded; one it left for the next upstream failed (unless it answered 404, a model
 * it does not serve); the last one gets the call's error — a failure when that error is
 * retryable, nothing at all when it is the caller's abort or a 4xx of the caller's making.
 * A resumable stream's call runs in its Durable Object, whose start response reports the same
 * outcomes as of that moment ({@linkcode UpstreamRoute.report}); an upstream it still waits for
 * is left unrecorded, so a probe's claim on it holds until the claim lapses.
 *
 * @module
 */

import { isInterruptedError, isPartialStreamError } from "../error_guards.ts";
import { isRetryable } from "../retry_policy.ts";

/** Consecutive failures count only within this span (from the first of them). */
const WINDOW_MS = 30_000;
const noop = (): void => {};

/**
 * When an upstream cools down, and for how long.
 *
 * @example
 * ```ts
 * const settings: CooldownSettings = { failures: 3, cooldownMs: 30_000 };
 * ```
 */
export interface CooldownSettings {
  /** Consecutive failed calls (within 30 s) that start a cooldown; 0 turns cooldown off. */
  failures: number;
  /** How long the upstream is skipped, in ms. */
  cooldownMs: number;
  /** The clock (tests). Default `Date.now`. */
  now?: () => number;
}

/**
 * What one call taught about one upstream: it answered, it failed (a retryable error), or
 * nothing (the caller's abort, a 4xx of the caller's making, never tried).
 *
 * @example
 * ```ts
 * const outcome: Outcome = "failure";
 * ```
 */
export type Outcome = "success" | "failure" | "neutral";

interface Health {
  /** Consecutive failed calls, and when the first of them ended. */
  failures: number;
  since: number;
  /** Cooling down until then (ms since epoch); 0 when in service. */
  until: number;
  /** The call probing it now that its cooldown is over, and until when its claim holds. */
  probe: UpstreamRoute | undefined;
  probeUntil: number;
}

/**
 * The health of a relay's upstreams, shared by every call of one isolate.
 *
 * @example
 * ```ts
 * const cooldowns = new UpstreamCooldowns(2, { failures: 3, cooldownMs: 30_000 });
 * const route = cooldowns.route(); // route.order: [0, 1], or [1] while the primary cools down
 * ```
 */
export class UpstreamCooldowns {
  #health: Health[];
  #failures: number;
  #cooldownMs: number;
  #now: () => number;

  constructor(count: number, settings: CooldownSettings) {
    this.#health = Array.from({ length: count }, () => ({
      failures: 0,
      since: 0,
      until: 0,
      probe: undefined,
      probeUntil: 0,
    }));
    this.#failures = settings.failures;
    this.#cooldownMs = settings.cooldownMs;
    this.#now = settings.now ?? (() => Date.now());
  }

  /**
   * The upstreams one call tries, in order. The call becomes the probe of those whose cooldown
   * is over (while another call probes one, it skips it as it skips those cooling down), and
   * must be watched ({@linkcode UpstreamRoute.watch}) or report ({@linkcode UpstreamRoute.report})
   * to end its claim. Upstreams `usable` refuses (that cannot honour the request) are left out;
   * at least one must be usable.
   */
  route(usable: (index: number) => boolean = () => true): UpstreamRoute {
    const now = this.#now();
    const order: number[] = [];
    const probes: number[] = [];
    let soonest: number | undefined;
    this.#health.forEach((health, index) => {
      if (!usable(index)) return;
      if (health.until === 0) order.push(index);
      else if (health.until <= now && !this.#probing(health, now)) {
        order.push(index);
        probes.push(index);
      } else if (soonest === undefined || health.until < this.#health[soonest]!.until) {
        soonest = index;
      }
    });
    // Every upstream is cooling down: the one back soonest, rather than failing untried.
    if (order.length === 0) order.push(soonest!);
    const route = new UpstreamRoute(this, order);
    for (const index of probes) {
      const health = this.#health[index]!;
      health.probe = route;
      health.probeUntil = now + this.#cooldownMs;
    }
    return route;
  }

  /**
   * Whether a call is probing the upstream. A claim lapses after a cooldown's length, so that a
   * call that never reported back (a bug, a throw before it was watched) cannot keep the
   * upstream out of service for good.
   */
  #probing(health: Health, now: number): boolean {
    return health.probe !== undefined && health.probeUntil > now;
  }

  /** @internal A call ended: what it learnt about upstream `index`. */
  record(index: number, outcome: Outcome, route: UpstreamRoute): void {
    const health = this.#health[index]!;
    if (health.probe === route) health.probe = undefined;
    if (outcome === "neutral" || this.#failures === 0) return;
    if (outcome === "success") {
      health.failures = 0;
      health.until = 0;
      return;
    }
    const now = this.#now();
    // A probe that failed (or a call sent to it while every upstream cooled): once more.
    if (health.until !== 0) {
      health.until = now + this.#cooldownMs;
      return;
    }
    if (health.failures === 0 || now - health.since > WINDOW_MS) {
      health.failures = 0;
      health.since = now;
    }
    if (++health.failures >= this.#failures) {
      health.failures = 0;
      health.until = now + this.#cooldownMs;
    }
  }
}

/**
 * One call's way through the upstreams: their order, a `fetch` per target that notes what each
 * upstream answered, and the outcome recorded once when the call ends.
 *
 * @example
 * ```ts
 * const route = cooldowns.route();
 * const fetchFirst = route.fetchFor(0, fetch); // for the call's first target, upstream route.order[0]
 * route.watch(chat.result);
 * ```
 */
export class UpstreamRoute {
  /** Upstream indices (as configured), in the order this call tries them. */
  readonly order: readonly number[];
  #cooldowns: UpstreamCooldowns;
  /** Per target of the call: the last HTTP status it answered (0: none yet), or untried. */
  #statuses: Array<number | undefined>;
  #done = false;

  constructor(cooldowns: UpstreamCooldowns, order: readonly number[]) {
    this.#cooldowns = cooldowns;
    this.order = order;
    this.#statuses = order.map(() => undefined);
  }

  /** The configured index of the call's target `target` (0: the first it tried). */
  upstreamOf(target: number): number {
    return this.order[target] ?? this.order[0]!;
  }

  /** A `fetch` for the call's target `target` that notes each request and its status. */
  fetchFor(target: number, base: typeof fetch): typeof fetch {
    return (input, init) => {
      this.#statuses[target] = 0;
      const pending = base(input, init);
      pending.then((response) => {
        this.#statuses[target] = response.status;
      }, noop);
      return pending;
    };
  }

  /** Records the call's outcome when `result` settles. */
  watch(result: Promise<{ target?: { index: number } }>): void {
    result.then((r) => this.#finish(r.target?.index ?? 0, undefined), (e) => this.#finish(-1, e));
  }

  /**
   * Records what a call that ran elsewhere (a resumable stream's Durable Object) taught, per
   * target in the call's order; `undefined` for the target it still waits for, which is left
   * unrecorded with every target after it (a probe's claim on them holds until it lapses).
   * Targets past the list were never tried.
   */
  report(outcomes: readonly (Outcome | undefined)[]): void {
    if (this.#done) return;
    this.#done = true;
    for (let target = 0; target < this.order.length; target++) {
      const outcome = target < outcomes.length ? outcomes[target] : "neutral";
      if (outcome === undefined) return;
      this.#cooldowns.record(this.order[target]!, outcome, this);
    }
  }

  #finish(answered: number, error: unknown): void {
    if (this.#done) return;
    this.#done = true;
    const statuses = this.#statuses;
    const last = answered >= 0 ? answered : statuses.findLastIndex((s) => s !== undefined);
    statuses.forEach((status, target) => {
      let outcome: Outcome;
      if (status === undefined || target > last) outcome = "neutral";
      else if (target === answered) outcome = "success";
      else if (target < last) outcome = status === 404 ? "neutral" : "failure";
      else outcome = outcomeOf(error);
      this.#cooldowns.record(this.order[target]!, outcome, this);
    });
  }
}

/**
 * The outcome of the call's error for the upstream it came from: the caller's abort, and a 4xx
 * of the caller's making, say nothing about the upstream.
 *
 * @example
 * ```ts
 * outcomeOf(new ConnectionError("reset")); // "failure"
 * ```
 */
export function outcomeOf(error: unknown): Outcome {
  const cause = isPartialStreamError(error) ? error.cause : error;
  if (isInterruptedError(cause)) return "neutral";
  return isRetryable(cause) ? "failure" : "neutral";
}
