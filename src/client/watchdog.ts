// Per-attempt timers, re-armed lazily: progress records a timestamp per chunk and the timer
// checks on firing whether the deadline passed (a reset per event would allocate per token).

import { MAX_TIMER_MS } from "../core/constants.ts";
import type { Cancellable } from "./call_control.ts";
import { TimeoutError, type TimeoutPhase } from "../core/error_classes.ts";
import type { Timeouts } from "../core/chat_options.ts";

/** `totalMs` is the whole call's, not an attempt's. */
export type AttemptTimeouts = Record<Exclude<keyof Timeouts, "totalMs">, number>;

export class Watchdog {
  #target: Cancellable;
  #timeouts: AttemptTimeouts;
  #timer: ReturnType<typeof setTimeout> | undefined = undefined;
  #phase: TimeoutPhase = "headers";
  #limit = 0;
  #since = 0;
  #paused = false;
  /** The `#since` of the last grace turn given (see `#onTimer`); -1: none this phase. */
  #gracedSince = -1;
  #fire = (): void => this.#onTimer();

  constructor(target: Cancellable, timeouts: AttemptTimeouts) {
    this.#target = target;
    this.#timeouts = timeouts;
  }

  arm(phase: "headers" | "first-event" | "idle"): void {
    this.#phase = phase;
    this.#limit = phase === "headers"
      ? this.#timeouts.headersMs
      : phase === "first-event"
      ? this.#timeouts.firstEventMs
      : this.#timeouts.idleMs;
    this.#since = Date.now();
    this.#gracedSince = -1;
    this.#schedule(this.#limit);
  }

  /** Called per chunk, not per event. */
  progress(): void {
    if (this.#phase === "first-event") this.arm("idle");
    else this.#since = Date.now();
  }

  /** A slow consumer is not a stalled server. */
  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    this.#since = Date.now();
  }

  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(ms: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = ms <= MAX_TIMER_MS ? setTimeout(this.#fire, Math.max(0, ms)) : undefined;
  }

  #onTimer(): void {
    this.#timer = undefined;
    const remaining = this.#limit - (Date.now() - this.#since);
    if (this.#paused) return this.#schedule(this.#limit);
    if (remaining > 0) return this.#schedule(remaining);
    // Due, but a blocked event loop runs timers before the I/O that arrived: one grace turn, as
    // long as the timer was late, lets that data count.
    if (this.#gracedSince !== this.#since) {
      this.#gracedSince = this.#since;
      return this.#schedule(Math.min(-remaining, this.#limit));
    }
    this.#target.cancel(new TimeoutError(this.#phase, this.#limit));
  }
}
