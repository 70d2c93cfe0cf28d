import { noop } from "../core/constants.ts";
import { isInterruptedError, isPartialStreamError } from "../core/error_guards.ts";
import { isForeignStream, isRetryable } from "../client/internal.ts";

/** Consecutive failures count only within this span (from the first of them). */
const WINDOW_MS = 30_000;

export interface CooldownSettings {
  /** Failed calls in a row (within 30 s, from two callers at least) that cool; 0: off. */
  failures: number;
  cooldownMs: number;
  /** For tests. */
  now?: () => number;
}

/** `neutral`: the call taught nothing of the upstream (the caller's abort or 4xx, never tried). */
export type Outcome = "success" | "failure" | "neutral";

/** Who made a call (caller.ts); `undefined`: unknown, each such call a caller of its own. */
export type CallerId = string | undefined;

interface Health {
  /** Consecutive failed calls, and when the first of them ended. */
  failures: number;
  since: number;
  /** The caller of the first of them, and whether another caller's call failed since. */
  first: CallerId;
  shared: boolean;
  /** The caller of the failure that last started or renewed the cooldown. */
  renewedBy: CallerId;
  /** Cooling down until then (ms since epoch); 0 when in service. */
  until: number;
  /** The call probing it now that its cooldown is over, and until when its claim holds. */
  probe: UpstreamRoute | undefined;
  probeUntil: number;
}

/**
 * Per isolate: an upstream that failed `failures` times in a row is skipped for `cooldownMs`,
 * then one call probes it. It takes two callers: one caller's bad requests never cool it for all.
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
      first: undefined,
      shared: false,
      renewedBy: undefined,
      until: 0,
      probe: undefined,
      probeUntil: 0,
    }));
    this.#failures = settings.failures;
    this.#cooldownMs = settings.cooldownMs;
    this.#now = settings.now ?? (() => Date.now());
  }

  /** The call probes the upstreams whose cooldown is over; it must be watched or report. */
  route(usable: (index: number) => boolean = () => true, caller?: CallerId): UpstreamRoute {
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
    const route = new UpstreamRoute(this, order, caller);
    for (const index of probes) {
      const health = this.#health[index]!;
      health.probe = route;
      health.probeUntil = now + this.#cooldownMs;
    }
    return route;
  }

  /** A claim lapses: a call that never reported back cannot keep the upstream out for good. */
  #probing(health: Health, now: number): boolean {
    return health.probe !== undefined && health.probeUntil > now;
  }

  /** How long `index` is still skipped, in ms (0: in service, or due for its probe). */
  remainingMs(index: number): number {
    return Math.max(0, (this.#health[index]?.until ?? 0) - this.#now());
  }

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
    const caller = route.caller;
    // A failure while cooling down renews it, unless its last renewer failed it again; a
    // cooldown already over ends, and this failure starts a run.
    if (health.until !== 0) {
      if (isOther(caller, health.renewedBy)) return this.#cool(health, caller, now);
      if (health.until > now) return;
      health.until = 0;
      health.failures = 0;
    }
    if (health.failures === 0 || now - health.since > WINDOW_MS) {
      health.failures = 0;
      health.since = now;
      health.first = caller;
      health.shared = caller === undefined;
    } else if (isOther(caller, health.first)) {
      health.shared = true;
    }
    if (++health.failures >= this.#failures && health.shared) this.#cool(health, caller, now);
  }

  #cool(health: Health, caller: CallerId, now: number): void {
    health.failures = 0;
    health.until = now + this.#cooldownMs;
    health.renewedBy = caller;
  }
}

/** A caller the relay cannot tell apart counts as another one, as every call did before. */
function isOther(caller: CallerId, than: CallerId): boolean {
  return caller === undefined || caller !== than;
}

/** One call's way through the upstreams; its outcome is recorded once, when the call ends. */
export class UpstreamRoute {
  readonly order: readonly number[];
  readonly caller: CallerId;
  #cooldowns: UpstreamCooldowns;
  /** Per target of the call: the last HTTP status it answered (0: none yet), or untried. */
  #statuses: Array<number | undefined>;
  #done = false;

  constructor(cooldowns: UpstreamCooldowns, order: readonly number[], caller: CallerId) {
    this.#cooldowns = cooldowns;
    this.order = order;
    this.caller = caller;
    this.#statuses = order.map(() => undefined);
  }

  upstreamOf(target: number): number {
    return this.order[target] ?? this.order[0]!;
  }

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

  watch(result: Promise<{ target?: { index: number } }>): void {
    result.then((r) => this.#finish(r.target?.index ?? 0, undefined), (e) => this.#finish(-1, e));
  }

  /** For a call run in a stream's Durable Object: from an `undefined` outcome on, nothing. */
  report(outcomes: readonly (Outcome | undefined)[]): void {
    if (this.#done) return;
    this.#done = true;
    for (let target = 0; target < this.order.length; target++) {
      const outcome = target < outcomes.length ? outcomes[target] : "neutral";
      if (outcome === undefined) return;
      this.#cooldowns.record(this.order[target]!, outcome, this);
    }
  }

  /** A target left for the next failed, unless it answered 404 (a model it does not serve). */
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
 * The caller's abort, and a 4xx of the caller's making, say nothing about the upstream; an
 * upstream that answers in another protocol than configured fails every call.
 */
export function outcomeOf(error: unknown): Outcome {
  const cause = isPartialStreamError(error) ? error.cause : error;
  if (isInterruptedError(cause)) return "neutral";
  return isRetryable(cause) || isForeignStream(cause) ? "failure" : "neutral";
}
