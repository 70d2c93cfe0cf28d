import { MAX_TIMER_MS, noop } from "../core/constants.ts";
import { CallControl } from "./call_control.ts";
import { interruptedMessage } from "../core/error_messages.ts";
import { InterruptedError, TimeoutError } from "../core/error_classes.ts";
import type { CallPlan } from "./plan.ts";
import { runCall } from "./retry_loop.ts";
import type { AttemptConsumer } from "./transport.ts";
import type { ChatResult, StreamEvent, TraceEntry } from "../core/chat_result.ts";

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };
const STOPPED_ITERATING = interruptedMessage("because the caller stopped iterating");

/**
 * One running call: its event queue, `result`, abort listener and total timer — the one place a
 * stop settles everything in the same turn. `Extra`: what a wrapped decoder queues beside events.
 */
export class Call<Extra = never> implements AsyncIterable<StreamEvent | Extra>, AttemptConsumer {
  #plan: CallPlan;
  #control = new CallControl();
  #started = false;
  /** Set once the first attempt is under way: an iterator attached now would miss events. */
  #running = false;
  #listening = false;
  #queue: Array<StreamEvent | Extra> = [];
  #head = 0;
  /** Consumers waiting for an event, oldest first (`next()` may be called without awaiting). */
  #pulls: Array<
    { resolve(r: IteratorResult<StreamEvent | Extra>): void; reject(e: unknown): void }
  > = [];
  #drain: (() => void) | undefined;
  #ended = false;
  #failure: { error: unknown } | undefined;
  #totalTimer: ReturnType<typeof setTimeout> | undefined;
  #result: Promise<ChatResult>;
  #resolve!: (result: ChatResult) => void;
  #reject!: (error: unknown) => void;
  #onAbort = (): void => {
    this.#stop(new InterruptedError((this.#plan.signal as AbortSignal).reason));
  };

  constructor(plan: CallPlan) {
    this.#plan = plan;
    this.#result = new Promise<ChatResult>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    // Whoever only iterates never looks at `result`; its rejection must not go unhandled.
    this.#result.catch(noop);
  }

  get result(): Promise<ChatResult> {
    this.#start();
    return this.#result;
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent | Extra> {
    if (this.#listening) throw new TypeError("stopstream: a ChatStream can be iterated only once");
    if (this.#plan.onPartial === "retry") {
      throw new TypeError(
        'stopstream: onPartial "retry" repeats output, so it cannot be iterated; use `result`',
      );
    }
    if (this.#running) {
      throw new TypeError(
        "stopstream: this ChatStream's events were not kept (it started through `result`); " +
          "iterate before reading `result`",
      );
    }
    this.#listening = true;
    return {
      next: () => this.#next(),
      return: () => {
        for (const pull of this.#pulls.splice(0)) pull.resolve(DONE);
        if (!this.#ended) this.#stop(new InterruptedError(undefined, STOPPED_ITERATING));
        this.#failure = undefined; // the iteration is closed: a later next() is just done
        return Promise.resolve(DONE);
      },
    };
  }

  /** Whether events are wanted (someone iterates). */
  get listening(): boolean {
    return this.#listening;
  }

  /** Whether parsed events wait for the consumer. */
  get backlogged(): boolean {
    return this.#head < this.#queue.length;
  }

  push(event: StreamEvent | Extra): void {
    const pull = this.#pulls.length > 0 ? this.#pulls.shift() : undefined;
    if (pull !== undefined) {
      pull.resolve({ done: false, value: event });
    } else {
      this.#queue.push(event);
    }
  }

  /** Resolves when the consumer has taken every queued event (or the call ended). */
  drained(): Promise<void> {
    return new Promise((resolve) => {
      this.#drain = resolve;
    });
  }

  #next(): Promise<IteratorResult<StreamEvent | Extra>> {
    // First: a start can end the call at once (signal already aborted).
    this.#start();
    if (this.#head < this.#queue.length) {
      const value = this.#queue[this.#head++]!;
      if (this.#head === this.#queue.length) {
        this.#queue.length = 0;
        this.#head = 0;
        this.#wakeProducer();
      }
      return Promise.resolve({ done: false, value });
    }
    if (this.#pulls.length === 0 && this.#failure !== undefined) {
      const { error } = this.#failure;
      this.#failure = undefined;
      return Promise.reject(error);
    }
    if (this.#ended && this.#pulls.length === 0) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.#pulls.push({ resolve, reject });
    });
  }

  #wakeProducer(): void {
    const drain = this.#drain;
    this.#drain = undefined;
    if (drain !== undefined) drain();
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    // Stopped before it began (an iterator closed before its first next()): send nothing.
    if (this.#ended) return;
    const { signal, totalMs } = this.#plan;
    if (signal?.aborted) return this.#stop(new InterruptedError(signal.reason));
    signal?.addEventListener("abort", this.#onAbort);
    // Beyond the largest timer delay a "limit" is no limit (a clamped timer would fire early).
    if (totalMs <= MAX_TIMER_MS) {
      this.#plan.deadline = Date.now() + totalMs;
      this.#totalTimer = setTimeout(
        () => this.#stop(new TimeoutError("total", totalMs)),
        totalMs,
      );
    }
    this.#run();
  }

  async #run(): Promise<void> {
    // One turn later, so an iterator attached right after `result` still sees every event.
    await null;
    this.#running = true;
    try {
      const result = await runCall(this.#plan, this.#control, this);
      if (this.#ended) return;
      result.trace = this.#control.trace;
      if (this.#listening) this.push({ type: "finish", result });
      this.#settle();
      this.#resolve(result);
      for (const pull of this.#pulls.splice(0)) pull.resolve(DONE);
    } catch (error) {
      this.#fail(error, false);
    }
  }

  /** Stop from outside (signal, total timeout, `break`): settles everything in this turn. */
  #stop(error: Error): void {
    this.#control.stop(error);
    this.#fail(error, true);
  }

  #fail(error: unknown, dropQueued: boolean): void {
    if (this.#ended) return;
    // The one place an error gets `attempts` and `trace`: the requests made so far.
    const ended = error as { attempts?: number; trace?: TraceEntry[] } | null;
    if (typeof ended === "object" && ended !== null && ended.attempts === undefined) {
      ended.attempts = this.#control.attempts;
      ended.trace = this.#control.trace;
    }
    this.#settle();
    this.#reject(error);
    if (dropQueued) {
      this.#queue.length = 0;
      this.#head = 0;
    }
    const pulls = this.#pulls.splice(0);
    if (pulls.length > 0) {
      pulls[0]!.reject(error);
      for (let i = 1; i < pulls.length; i++) pulls[i]!.resolve(DONE);
    } else {
      // Kept even when nobody iterates yet: an iterator attached in this turn must see it.
      this.#failure = { error };
    }
  }

  #settle(): void {
    this.#ended = true;
    this.#plan.signal?.removeEventListener("abort", this.#onAbort);
    if (this.#totalTimer !== undefined) clearTimeout(this.#totalTimer);
    this.#wakeProducer();
  }
}
