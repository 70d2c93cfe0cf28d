/**
 * The per-attempt timers: headers, first event, idle. One `setTimeout` per phase, re-armed
 * lazily: progress only records a timestamp per chunk, and the timer, when it fires, checks
 * whether the deadline really passed. Resetting a timer per event would cost a timer
 * allocation per token.
 *
 * @module
 */

import type { Cancellable } from "./call_control.ts";
import { TimeoutError, type TimeoutPhase } from "./error_classes.ts";

/** Longest delay `setTimeout` accepts; larger values fire at once, so they mean "no limit". */
const MAX_TIMER_MS = 2_147_483_647;

/** Resolved per-attempt limits in milliseconds (`Infinity` = none). */
export interface AttemptTimeouts {
  headersMs: number;
  firstEventMs: number;
  idleMs: number;
}

/**
 * Watches one attempt and cancels it with a {@linkcode TimeoutError} when a phase overruns.
 *
 * @example
 * ```ts
 * const watchdog = new Watchdog(attempt, { headersMs: 60_000, firstEventMs: 600_000, idleMs: 180_000 });
 * watchdog.arm("headers");
 * ```
 */
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
  // Created once per attempt, not per arm.
  #fire = (): void => this.#onTimer();

  constructor(target: Cancellable, timeouts: AttemptTimeouts) {
    this.#target = target;
    this.#timeouts = timeouts;
  }

  /** Starts a phase: `headers`, `first-event` or `idle`. */
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

  /** Records that data events arrived (called per chunk, not per event). */
  progress(): void {
    if (this.#phase === "first-event") this.arm("idle");
    else this.#since = Date.now();
  }

  /** A slow consumer is not a stalled server: stop counting while we wait for it. */
  pause(): void {
    this.#paused = true;
  }

  /** Resumes counting from now. */
  resume(): void {
    this.#paused = false;
    this.#since = Date.now();
  }

  /** Clears the timer; called on every exit path of an attempt. */
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
    // Due, but a consumer that blocked the event loop (long synchronous work on an event) makes
    // this timer fire late, before the data that arrived meanwhile has been read (timers run
    // before I/O): one more turn lets it count as progress before the stream is called silent.
    // Again after any progress since the last such turn (the consumer may block on every
    // event); a silent server makes none, so it gets exactly one. The turn lasts as long as
    // the timer was late (at most the limit): after a block the timers due meanwhile all run
    // at once, and a timer of 0 ms set among them could run with them, before any I/O.
    if (this.#gracedSince !== this.#since) {
      this.#gracedSince = this.#since;
      return this.#schedule(Math.min(-remaining, this.#limit));
    }
    this.#target.cancel(new TimeoutError(this.#phase, this.#limit));
  }
}
