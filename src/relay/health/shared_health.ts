// An isolate's view of the fleet's cooldowns (the `HEALTH` Durable Object), refreshed at most
// once a second off the request's path (`waitUntil`): no request waits for the object.

import { noop } from "../../core/constants.ts";
import {
  type CooldownSettings,
  type Outcome,
  UpstreamCooldowns,
  type UpstreamRoute,
} from "../cooldown.ts";
import { postJSON, type RelayNamespace, stubOf } from "../durable.ts";
import type { HealthReport, HealthState } from "./relay_health.ts";

/** The view is asked for again after this long, on the next request. */
const HEALTH_REFRESH_MS = 1_000;

export class SharedHealth {
  #namespace: RelayNamespace;
  #name: string;
  #shape: Omit<HealthReport, "outcomes">;
  /** Per upstream, skipped until then (this isolate's clock); 0 when in service. */
  #until: number[] = [];
  #askedAt = Number.NEGATIVE_INFINITY;
  #asking = false;
  /** As reported, but with when each was noted instead of its age. */
  #batch: HealthReport["outcomes"] = [];
  #callers = new WeakMap<UpstreamRoute, string>();

  /** `name` tells relay configurations apart: each has its own object. */
  constructor(namespace: RelayNamespace, name: string, shape: Omit<HealthReport, "outcomes">) {
    this.#namespace = namespace;
    this.#name = name;
    this.#shape = shape;
  }

  /** `usable` minus the upstreams the fleet is cooling, unless that would leave none. */
  usable(usable: (index: number) => boolean): (index: number) => boolean {
    const until = this.#until;
    if (until.length === 0) return usable;
    const now = Date.now();
    const open = (index: number): boolean => usable(index) && !((until[index] ?? 0) > now);
    for (let index = 0; index < this.#shape.upstreams; index++) if (open(index)) return open;
    return usable;
  }

  /** Whose call `route` is, for the object's count of distinct callers. */
  claim(route: UpstreamRoute, caller: string): void {
    this.#callers.set(route, caller);
  }

  /** The request that refreshes a view older than a second, to keep running; else undefined. */
  refresh(): Promise<void> | undefined {
    if (this.#asking || Date.now() - this.#askedAt < HEALTH_REFRESH_MS) return undefined;
    // The outcomes noted so far go with it.
    return this.#send();
  }

  note(route: UpstreamRoute, index: number, outcome: Outcome): void {
    // A neutral outcome teaches the fleet nothing; successes in a row say no more than one.
    if (outcome === "neutral") return;
    const batch = this.#batch;
    for (let i = batch.length - 1; i >= 0; i--) {
      if (batch[i]![0] !== index) continue;
      if (outcome === "success" && batch[i]![1] === "success") return;
      break;
    }
    batch.push([index, outcome, this.#callers.get(route) ?? "", Date.now()]);
  }

  /** Sends the outcomes noted so far: at once after a failure, else at most once a second. */
  flush(): Promise<void> | undefined {
    const batch = this.#batch;
    if (batch.length === 0) return undefined;
    const due = Date.now() - this.#askedAt >= HEALTH_REFRESH_MS;
    return due || batch.some((entry) => entry[1] === "failure") ? this.#send() : undefined;
  }

  #send(): Promise<void> {
    const now = Date.now();
    const outcomes = this.#batch.map((
      [index, outcome, caller, at],
    ): HealthReport["outcomes"][0] => [index, outcome, caller, Math.max(0, now - at)]);
    const report: HealthReport = { ...this.#shape, outcomes };
    this.#batch = [];
    this.#askedAt = now;
    this.#asking = true;
    // An unreachable object leaves the view as it was: the isolate's own cooldowns still work.
    // A stub per request: Workers bind one to the request that made it.
    return postJSON(stubOf(this.#namespace, this.#name), "https://relay-health/report", report)
      .then(async (response) => {
        if (!response.ok) return;
        const { remainingMs } = await response.json() as HealthState;
        const now = Date.now();
        this.#until = remainingMs.map((ms) => (ms > 0 ? now + ms : 0));
      })
      .catch(noop)
      .finally(() => (this.#asking = false));
  }
}

/** The isolate's cooldowns, which also tell the fleet's view every outcome they record. */
export class SharedCooldowns extends UpstreamCooldowns {
  readonly shared: SharedHealth;

  constructor(count: number, settings: CooldownSettings, shared: SharedHealth) {
    super(count, settings);
    this.shared = shared;
  }

  override record(...args: Parameters<UpstreamCooldowns["record"]>): void {
    super.record(...args);
    this.shared.note(args[2], args[0], args[1]);
  }
}
