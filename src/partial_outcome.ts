/**
 * How a call that cannot go on ends: with the part of the answer that arrived (`onPartial`), or
 * with its error, which says how many requests the call made.
 *
 * @module
 */

import type { Accumulator } from "./accumulator.ts";
import { PartialStreamError } from "./error_classes.ts";
import type { CallPlan, CallTarget } from "./retry_loop.ts";
import type { ChatResult } from "./chat_result.ts";

/**
 * `"return"` resolves with what arrived; `"throw"` (and an impossible continue) rejects. Either
 * way the partial result's `finishReason` is `"error"`: the answer was cut off, whatever the
 * provider had said about it so far (its own word stays in `providerFinishReason`).
 *
 * @example
 * ```ts
 * return partialOutcome(plan, acc, attempts, continuations, error, target);
 * ```
 */
export function partialOutcome(
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
  throw withAttempts(new PartialStreamError(partial, cause), attempts);
}

/**
 * Sets `attempts` (the requests the call made) on the error that ends it.
 *
 * @example
 * ```ts
 * throw withAttempts(error, control.attempts);
 * ```
 */
export function withAttempts(error: unknown, attempts: number): unknown {
  if (error !== null && typeof error === "object") {
    (error as { attempts?: number }).attempts = attempts;
  }
  return error;
}
