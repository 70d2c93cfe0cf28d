// What stands between a request and its call when the relay has Durable Objects: the per-key
// limits and the fleet's view of upstream health. Without them, only the isolate's cooldowns.

import type { Context } from "hono";
import { noop } from "../core/constants.ts";
import type { Caller } from "./caller.ts";
import type { RelayFailure } from "./error_response.ts";
import { UpstreamCooldowns, type UpstreamRoute } from "./cooldown.ts";
import { keepRunning } from "./durable.ts";
import { SharedCooldowns, SharedHealth } from "./health/shared_health.ts";
import { KeyLimits, Lease } from "./limits/key_limits.ts";
import type { ResolvedRelayOptions } from "./options.ts";

/** One per route handler (an isolate). */
export class CallGuards {
  readonly cooldowns: UpstreamCooldowns;
  #health: SharedHealth | undefined;
  #limits: KeyLimits | undefined;

  constructor(config: ResolvedRelayOptions) {
    const upstreams = config.upstreams;
    const settings = { failures: config.cooldownFailures, cooldownMs: config.cooldownMs };
    if (config.health !== undefined && config.cooldownFailures > 0) {
      // Relays with the same upstreams and settings share one object; no key is in its name.
      const name = `health:${
        JSON.stringify(upstreams.map((u) => [u.baseURL, u.protocol, u.model ?? ""]))
      }`;
      const shape = { upstreams: upstreams.length, ...settings };
      this.#health = new SharedHealth(config.health, name, shape);
      this.cooldowns = new SharedCooldowns(upstreams.length, settings, this.#health);
    } else {
      this.cooldowns = new UpstreamCooldowns(upstreams.length, settings);
    }
    if (config.limits !== undefined && (config.keyRpm > 0 || config.keyConcurrency > 0)) {
      this.#limits = new KeyLimits(config.limits, {
        rpm: config.keyRpm,
        concurrency: config.keyConcurrency,
      });
    }
  }

  /** Whether {@linkcode admit} needs the caller's `hash` (a Durable Object is asked). */
  get hashes(): boolean {
    return this.#health !== undefined || this.#limits !== undefined;
  }

  /** A 429 to answer at once (in the route's shape), or the call's way on. */
  async admit(c: Context, caller: Caller): Promise<RelayFailure | Admitted> {
    const lease = await this.#limits?.acquire(caller.hash);
    if (lease !== undefined && !(lease instanceof Lease)) return lease;
    return new Admitted(c, this.cooldowns, this.#health, caller, lease);
  }
}

/** One admitted call: routed, then reported and its slot released when it ends. */
export class Admitted {
  #c: Context;
  #cooldowns: UpstreamCooldowns;
  #health: SharedHealth | undefined;
  #caller: Caller;
  #lease: Lease | undefined;

  constructor(
    c: Context,
    cooldowns: UpstreamCooldowns,
    health: SharedHealth | undefined,
    caller: Caller,
    lease: Lease | undefined,
  ) {
    this.#c = c;
    this.#cooldowns = cooldowns;
    this.#health = health;
    this.#caller = caller;
    this.#lease = lease;
  }

  route(usable: (index: number) => boolean): UpstreamRoute {
    const health = this.#health;
    const caller = this.#caller.id;
    if (health === undefined) return this.#cooldowns.route(usable, caller);
    const route = this.#cooldowns.route(health.usable(usable), caller);
    // A caller the relay cannot tell apart ("") counts there as one of its own, as here.
    health.claim(route, caller === undefined ? "" : this.#caller.hash);
    const refresh = health.refresh();
    if (refresh !== undefined) keepRunning(this.#c, refresh);
    return route;
  }

  /** Call after the route watches `result`, so its outcomes are noted first. */
  ended(result: Promise<unknown>): void {
    if (this.#health === undefined && this.#lease === undefined) return;
    const done = result.then(noop, noop).then(() =>
      Promise.all([this.#health?.flush(), this.#lease?.release()])
    );
    keepRunning(this.#c, done);
  }
}
