/** The upstream call of one resumable stream: it runs whether or not anyone reads. */

import type { RelayFetch } from "../options.ts";
import type { Call } from "../../client/internal.ts";
import type { StreamChatOptions } from "../../core/chat_options.ts";
import { ATTEMPTS_HEADER } from "../../core/constants.ts";
import type { AnswerEncoder } from "../answer_encoder.ts";
import type { RelayItem } from "../chunks.ts";
import { type CallOutcome, logWhenSettled } from "../call_log.ts";
import { commitTiming } from "../commit.ts";
import { describeFailure } from "../describe_failure.ts";
import type { RelayFailure } from "../error_response.ts";
import { callFor, encoderFor } from "../inbound.ts";
import { AnswerLabel, isComment } from "../progress.ts";
import { createUpstreamFetch, type UpstreamFetch } from "../upstream_fetch.ts";
import type { EventLog } from "./event_log.ts";
import { CallOutcomes, OUTCOMES_HEADER } from "./outcomes.ts";
import { RetryAllowance, RETURNED_HEADER } from "./retry_allowance.ts";
import type { StreamStatus } from "./stream_store.ts";
import { type StartPlan, UNREAD_MS } from "./wire.ts";

export type StopReason = "cancelled" | "too_large" | "caller_left" | "unread";

/** A stopped run ends in an `InterruptedError`: the log says who stopped it. */
const STOP_OUTCOMES: Record<StopReason, CallOutcome> = {
  cancelled: "cancelled",
  too_large: "error",
  caller_left: "caller_gone",
  unread: "cancelled",
};

/** Not a passing condition: a client must not send the request again by itself. */
const STOPPED: RelayFailure = {
  status: 499,
  message: "The answer was stopped by a cancel request, so it is incomplete.",
  type: "cancelled",
  code: "stream_cancelled",
};

/** Nobody read the stream for `unreadMs`: as a cancel, so no client sends it again by itself. */
function unread(unreadMs: number): RelayFailure {
  return {
    ...STOPPED,
    message: `The answer was stopped because it had no reader for ${unreadMs} ms, so it is ` +
      "incomplete.",
  };
}

/** The Durable Object restarted mid-call. Passing: the request may be sent again. */
export const INTERRUPTED: RelayFailure = {
  status: 502,
  message: "The relay restarted while it streamed this answer, so the rest of it was lost; " +
    "send the request again.",
  type: "server_error",
  code: "stream_interrupted",
};

/** A start that failed before any upstream request: nothing of the stream is kept. */
export const START_FAILED: RelayFailure = {
  status: 500,
  message: "The relay could not start the resumable stream; send the request again, or without " +
    "x-stopstream-resumable if it keeps failing.",
  type: "server_error",
  code: "stream_start_failed",
};

export function secretsOf(call: StreamChatOptions): string[] {
  return [call, ...(call.fallbacks ?? [])].flatMap((u) => u.apiKey ?? []);
}

function tooLarge(maxBytes: number): RelayFailure {
  return {
    status: 500,
    message: `The answer passed this relay's limit of ${maxBytes} bytes for a resumable ` +
      "stream, so it was stopped there and is incomplete.",
    type: "relay_limit",
    code: "stream_too_large",
  };
}

/** The constructor only checks the plan (it throws on a bad one); `start` sends the request. */
export class StreamRun {
  /** `undefined` once the answer can begin (a 200, content, or the commit time), or the failure. */
  readonly committed: Promise<RelayFailure | undefined>;
  /** As of the commit; later changes reach readers as a comment (`AnswerLabel`). */
  headers: Record<string, string> = {};
  /** Why the run was stopped, once it was. */
  stopped: StopReason | undefined;
  #label: AnswerLabel;
  #abort = new AbortController();
  #fetch: UpstreamFetch;
  #isCommitted = false;
  #commit!: (failure: RelayFailure | undefined) => void;
  #plan: StartPlan;
  #log: EventLog;
  #chat: Call<RelayItem>;
  #encoder: AnswerEncoder;
  #outcomes = new CallOutcomes();
  #allowance: RetryAllowance | undefined;
  #returned = 0;

  constructor(plan: StartPlan, log: EventLog, fetch: RelayFetch | undefined) {
    this.committed = new Promise((resolve) => (this.#commit = resolve));
    this.#plan = plan;
    this.#log = log;
    this.#fetch = createUpstreamFetch(fetch);
    this.#label = new AnswerLabel(
      (target) => plan.upstreams[target] ?? target,
      () => this.#fetch.calls,
    );
    this.#encoder = encoderFor(plan.chat);
    // Without a loan (a Worker older than the loans), the call has no budget.
    if (plan.retries !== undefined) this.#allowance = new RetryAllowance(plan.retries);
    const retryBudget = this.#allowance === undefined ? {} : { retryBudget: this.#allowance };
    // The relay's fast path here too: the stored events of an answer are its live ones.
    this.#chat = callFor(
      { ...plan.call, signal: this.#abort.signal, fetch: this.#fetch.fetch, ...retryBudget },
      this.#encoder,
      plan.chat.protocol,
      this.#fetch.tap,
    );
  }

  /** Settles once the final event is visible; `undefined` when nothing was stored. */
  start(signal: AbortSignal | undefined): Promise<StreamStatus | undefined> {
    const ended = this.#pump();
    // After the pump began iterating: reading `result` first would lose the events.
    const { log, id, upstreams } = this.#plan;
    logWhenSettled(
      log && { ...log, streamId: id },
      this.#chat.result,
      () => this.#encoder.startedAt,
      (target) => upstreams[target] ?? target,
      () => this.stopped && STOP_OUTCOMES[this.stopped],
    );
    // Gone before the answer began, the caller never learned the id: none could resume or stop it.
    const callerLeft = (): void => {
      if (!this.#isCommitted) this.stop("caller_left");
    };
    if (signal?.aborted) callerLeft();
    signal?.addEventListener("abort", callerLeft);
    return ended;
  }

  /** For the Worker's cooldowns (it removes the outcomes header). */
  get report(): Record<string, string> {
    return {
      [ATTEMPTS_HEADER]: String(this.#fetch.calls),
      [OUTCOMES_HEADER]: this.#outcomes.toString(),
      [RETURNED_HEADER]: String(this.#returned),
    };
  }

  /** How long the running stream may have no reader. */
  get unreadMs(): number {
    return this.#plan.unreadMs ?? UNREAD_MS;
  }

  /** The next heartbeat; `undefined` once it stopped an unread run (it would run to its limit). */
  heartbeat(now: number, everyMs: number): number | undefined {
    if (this.#log.readers > 0) return now + everyMs;
    const due = this.#log.unreadSince + this.unreadMs;
    if (now < due) return Math.min(now + everyMs, due);
    this.stop("unread");
    return undefined;
  }

  stop(reason: StopReason): void {
    this.stopped ??= reason;
    this.#abort.abort(new Error(`the stream was stopped (${reason})`));
  }

  /** `waiting`: committed before the answer began; the call may still need its retries. */
  #begin(failure: RelayFailure | undefined, waiting = false): void {
    if (this.#isCommitted) return;
    this.#isCommitted = true;
    this.#returned = this.#allowance?.release(waiting && failure === undefined) ?? 0;
    this.headers = this.#label.headers();
    this.#commit(failure);
  }

  async #pump(): Promise<StreamStatus | undefined> {
    const encoder = this.#encoder;
    const log = this.#log;
    const iterator = this.#chat[Symbol.asyncIterator]();
    // The relay's commit time: an answer that has begun lets the caller go with the stream id.
    const timer = setTimeout(
      () => this.#begin(undefined, true),
      commitTiming(this.#plan.keepAliveMs).commitMs,
    );
    try {
      for (;;) {
        const step = await iterator.next();
        if (step.done) break;
        const event = step.value;
        this.#outcomes.note(event);
        const started = encoder.started;
        if (!started) this.#label.note(event);
        // A forwarded piece that may go out as it came: its bytes are stored, not encoded again.
        const bytes = encoder.takeBytes(event);
        const text = encoder.encode(event);
        if (text !== "") {
          // A progress comment before the answer commits too, but the call keeps its retries.
          this.#begin(undefined, !encoder.started);
          if (!started && encoder.started) log.note(this.#label.late());
          // Progress comments go to readers unnumbered; events are numbered and stored.
          if (isComment(text)) log.note(text);
          else if (!log.append(bytes ?? text)) {
            this.stop("too_large");
            void iterator.return?.();
            await log.close(encoder.fail(tooLarge(this.#plan.maxBytes)));
            return "failed";
          }
        }
        if (!this.#chat.backlogged) log.flushSoon();
      }
      this.#begin(undefined);
      await log.close(encoder.done);
      return "completed";
    } catch (error) {
      this.#outcomes.fail(error);
      const failure = this.stopped === "cancelled"
        ? STOPPED
        : this.stopped === "unread"
        ? unread(this.unreadMs)
        : describeFailure(error, secretsOf(this.#plan.call));
      if (!this.#isCommitted) {
        // Nobody has the stream id yet: the caller gets an HTTP error, and nothing is kept.
        this.#begin(failure);
        return undefined;
      }
      await log.close(encoder.fail(failure));
      return this.stopped === "cancelled" || this.stopped === "unread" ? "cancelled" : "failed";
    } finally {
      clearTimeout(timer);
    }
  }
}
