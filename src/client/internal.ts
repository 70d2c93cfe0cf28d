// All that src/relay/ uses of src/client/: not public API (stopstream/hono ships with the client
// it was built against), but a seam kept small on purpose.

import type { ProtocolName } from "../core/chat_options.ts";
import type { Accumulator } from "../core/accumulator.ts";
import type { StreamDecoder } from "../protocols/protocol.ts";
import type { CallPlan } from "./plan.ts";
import type { FeedDecoder } from "./sse_feed.ts";

export { Call } from "./call.ts";
export { CALL_LIMITS, type CallPlan, planCall } from "./plan.ts";
export { isForeignStream, isRetryable, retryAfterMs } from "./retry_policy.ts";
export type { FeedDecoder } from "./sse_feed.ts";

/** Puts `wrap` in front of the decoder of each target of `plan` that speaks `protocol`. */
export function wrapDecoders(
  plan: CallPlan,
  protocol: ProtocolName,
  wrap: (decoder: StreamDecoder, acc: Accumulator) => FeedDecoder,
): void {
  for (const target of plan.targets) {
    const inner = target.protocol;
    if (inner.name !== protocol) continue;
    target.protocol = { ...inner, createDecoder: (acc) => wrap(inner.createDecoder(acc), acc) };
  }
}
