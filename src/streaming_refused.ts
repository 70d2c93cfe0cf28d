/**
 * Streaming refused: some providers answer `400` to `stream: true` for some models (OpenAI's
 * first o1 models, or any model an unverified organisation may not stream). The call then
 * makes one non-streaming request (non_streaming.ts, loaded on first use: most apps never
 * meet such a provider) and delivers the whole answer as the same events and result, with
 * `result.streamed = false`.
 *
 * @module
 */

import type { CallControl } from "./call_control.ts";
import type { ChatResult } from "./chat_result.ts";
import { CORE_KIT } from "./core_kit.ts";
import { isAPIStatusError } from "./error_guards.ts";
import { lazy } from "./lazy.ts";
import type { Protocol } from "./protocols/protocol.ts";
import type { CallTarget } from "./retry_loop.ts";
import type { AttemptConsumer } from "./transport.ts";

const REFUSED = "(?:not supported|unsupported|does not support|not available|not allowed|disabled)";
/** "streaming is not supported for this model", "this model does not support streaming"… */
const REFUSAL = new RegExp(`\\bstream(?:ing)?\\b[^.]*${REFUSED}|${REFUSED}[^.]*\\bstream`, "i");

/**
 * Whether `error` is a provider refusing to stream this model: a `400` whose error names the
 * `stream` parameter or says that streaming is not supported.
 *
 * @example
 * ```ts
 * isStreamingRefused(new APIStatusError(400, {}, { error: { message: "Streaming is not supported for this model" } })); // true
 * ```
 */
export function isStreamingRefused(error: unknown): boolean {
  if (!isAPIStatusError(error) || error.status !== 400) return false;
  const body = error.body as { error?: unknown } | string | null;
  const detail = typeof body === "object" && body !== null && "error" in body ? body.error : body;
  if (typeof detail === "string") return REFUSAL.test(detail);
  const { param, message } = (detail ?? {}) as { param?: unknown; message?: unknown };
  return param === "stream" || (typeof message === "string" && REFUSAL.test(message));
}

/**
 * Makes the one non-streaming request for `target` and delivers its answer to `consumer`.
 * Its time limits: `firstEventMs` until the response headers (a non-streaming server sends
 * them only once the whole answer is ready), then `idleMs` between body chunks. Errors carry
 * `attempts`; a stop rejects with the stop error.
 *
 * @example
 * ```ts
 * const requestWhole: RequestWhole = wholeAnswers(CORE_KIT);
 * ```
 */
export type RequestWhole = (
  target: CallTarget,
  protocol: Protocol,
  control: CallControl,
  consumer: AttemptConsumer,
  attempt: number,
  maxBytes: number,
) => Promise<ChatResult>;

const loadWhole = lazy(
  "the non-streaming fallback",
  () => import("./non_streaming.ts").then((module) => module.wholeAnswers(CORE_KIT)),
);

/**
 * {@linkcode RequestWhole}, once its module has loaded (within the call's `headersMs`; a load
 * that fails is this attempt's `ConnectionError`).
 *
 * @example
 * ```ts
 * if (isStreamingRefused(error)) return await requestWhole(target, protocol, control, consumer, attempts + 1, maxBytes);
 * ```
 */
export const requestWhole: RequestWhole = async (...call) => {
  const [target, , control] = call;
  const request = await loadWhole(control, target.timeouts.headersMs);
  return await request(...call);
};
