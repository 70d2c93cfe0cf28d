// The retry loop: every rule of when to try again (and when never to) is here, top to bottom.

import { MAX_TIMER_MS } from "../core/constants.ts";
import { Accumulator } from "../core/accumulator.ts";
import type { CallControl } from "./call_control.ts";
import { InterruptedError, PartialStreamError } from "../core/error_classes.ts";
import { isAPIStatusError, isTimeoutError } from "../core/error_guards.ts";
import { isStreamingRefused, requestWhole } from "./non_streaming.ts";
import { backoffDelay, isForeignStream, isRetryable } from "./retry_policy.ts";
import { resultOf } from "./response.ts";
import { ResumableStream } from "./resume.ts";
import { Attempt, type AttemptConsumer } from "./transport.ts";
import type { ChatResult } from "../core/chat_result.ts";
import type { CallPlan, CallTarget } from "./plan.ts";

export async function runCall(
  plan: CallPlan,
  control: CallControl,
  consumer: AttemptConsumer,
): Promise<ChatResult> {
  let continuations = 0;
  let lastError: unknown;
  let previous: Accumulator | undefined; // set while continuing a cut-off answer
  for (let index = 0; index < plan.targets.length; index++) {
    const target = plan.targets[index]!;
    if (index > 0 && consumer.listening) {
      consumer.push({ type: "fallback", index, error: lastError as Error });
    }
    // A target whose retries ran out handed its cut-off answer on: this one asks for the rest.
    let request = previous === undefined
      ? target.request
      : target.rebuild(target.protocol.continuationBody!(target.body, previous.content));
    let stream = new ResumableStream(target, control);
    for (let retry = 0;; retry++) {
      if (control.stopError !== undefined) throw control.stopError;
      if (plan.signal?.aborted) throw new InterruptedError(plan.signal.reason);
      const attempts = ++control.attempts;
      if (attempts === 1) plan.budget?.deposit();
      const acc = stream.acc ?? new Accumulator(consumer.listening ? consumer : null, previous);
      const attempt = new Attempt(control, target, stream.request() ?? request);
      try {
        const headers = await attempt.run(attempts, acc, consumer, stream, plan.maxEventBytes);
        const result = resultOf(acc, attempts, target, headers);
        if (continuations > 0) result.continuations = continuations;
        return result;
      } catch (caught) {
        // A stop wins over whatever the attempt saw while being torn down.
        if (control.stopError !== undefined) throw control.stopError;
        const exhausted = retry >= target.maxRetries;
        // A stream the server keeps running resumes where it broke off, repeating nothing, so
        // delivered content does not matter.
        const resumeAfter = stream.resumeAfter(caught, exhausted);
        const fresh = resumeAfter === undefined;
        const error = fresh ? stream.failure(caught) : caught;
        if (fresh) stream = new ResumableStream(target, control);
        lastError = error;
        const retryable = isRetryable(error);
        // Content reached the caller: a retry would repeat it (unless `onPartial: "retry"`).
        if (fresh && ((acc.delivered && plan.onPartial !== "retry") || previous !== undefined)) {
          const next = exhausted ? plan.targets[index + 1] : target;
          const canContinue = plan.onPartial === "continue" && retryable &&
            acc.toolCalls.length === 0 && acc.lastKind !== "reasoning" &&
            next?.protocol.continuationBody !== undefined && acc.content.length > 0;
          if (!canContinue) {
            return partialOutcome(plan, acc, attempts, continuations, error, target);
          }
          if (acc.delivered) {
            continuations++;
            previous = acc;
          }
          if (exhausted) break;
          request = target.rebuild(
            target.protocol.continuationBody!(target.body, previous!.content),
          );
        } else if (
          // A stall with a fallback left moves on at once: another wait on the same upstream
          // would cost the caller a whole timeout more.
          fresh && (!retryable || exhausted ||
            (isTimeoutError(error) && index + 1 < plan.targets.length))
        ) {
          if (isStreamingRefused(error) && target.protocol.decodeMessage !== undefined) {
            return await requestWhole(target, control, consumer, plan.maxEventBytes);
          }
          if (retryable || movesOn(error)) break; // on to the next target, if any
          throw error;
        }
        const delayMs = backoffDelay(error, retry + 1, target.backoff);
        // A sleep past the deadline only delays the same failure, and one over 2^31 - 1 ms fires
        // at once. An empty budget moves on to the next target (another upstream).
        if (
          delayMs === undefined || !(delayMs <= MAX_TIMER_MS) ||
          Date.now() + delayMs >= plan.deadline ||
          plan.budget?.tryWithdraw() === false
        ) {
          const kept = !fresh && (acc.delivered || previous !== undefined) ? acc : previous;
          if (kept !== undefined) {
            return partialOutcome(plan, kept, attempts, continuations, error, target);
          }
          if (index + 1 < plan.targets.length) break;
          throw error;
        }
        if (consumer.listening) {
          const next = { attempt: attempts + 1, delayMs, error: error as Error };
          if (fresh) consumer.push({ type: "retry", ...next });
          else consumer.push({ type: "resume", lastEventId: resumeAfter, ...next });
        }
        await sleep(delayMs, control);
      }
    }
  }
  throw lastError;
}

/** A partial result ends in `"error"` whatever the provider said (see `providerFinishReason`). */
function partialOutcome(
  plan: CallPlan,
  acc: Accumulator,
  attempts: number,
  continuations: number,
  cause: unknown,
  target: CallTarget,
): ChatResult {
  const partial = acc.toResult(attempts);
  partial.finishReason = "error";
  partial.target = target.info;
  if (continuations > 0) partial.continuations = continuations;
  if (plan.onPartial === "return") {
    partial.partial = true;
    partial.error = cause as Error;
    return partial;
  }
  throw new PartialStreamError(partial, cause);
}

/** A stop rejects it in the same turn and clears its timer: stop never waits out a backoff. */
function sleep(ms: number, control: CallControl): Promise<void> {
  return new Promise((resolve, reject) => {
    if (control.stopError !== undefined) return reject(control.stopError);
    control.waitMs = ms;
    const handle = {
      cancel(reason: Error): void {
        clearTimeout(timer);
        reject(reason);
      },
    };
    const timer = setTimeout(() => {
      if (control.current === handle) control.current = undefined;
      resolve();
    }, ms);
    control.current = handle;
  });
}

/** Not worth a retry here, but another upstream may serve: a model it lacks, another protocol. */
function movesOn(error: unknown): boolean {
  return isForeignStream(error) || (isAPIStatusError(error) && error.status === 404);
}
