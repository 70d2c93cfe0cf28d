import type { Accumulator } from "../core/accumulator.ts";
import { PartialStreamError } from "../core/error_classes.ts";
import type { CallPlan, CallTarget } from "./plan.ts";
import type { ChatResult } from "../core/chat_result.ts";

/** A partial result ends in `"error"` whatever the provider said (see `providerFinishReason`). */
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

export function withAttempts(error: unknown, attempts: number): unknown {
  if (error !== null && typeof error === "object") {
    (error as { attempts?: number }).attempts = attempts;
  }
  return error;
}
