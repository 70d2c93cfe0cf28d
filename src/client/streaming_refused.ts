// Some providers answer `400` to `stream: true` for some models (OpenAI's first o1 models, an
// unverified organisation): the call then makes one non-streaming request (non_streaming.ts).

import type { CallControl } from "./call_control.ts";
import type { ChatResult } from "../core/chat_result.ts";
import { CORE_KIT } from "./core_kit.ts";
import { isAPIStatusError } from "../core/error_guards.ts";
import { lazy } from "./lazy.ts";
import type { Protocol } from "../protocols/protocol.ts";
import type { CallTarget } from "./retry_loop.ts";
import type { AttemptConsumer } from "./transport.ts";

const REFUSED = "(?:not supported|unsupported|does not support|not available|not allowed|disabled)";
/** "streaming is not supported for this model", "this model does not support streaming"… */
const REFUSAL = new RegExp(`\\bstream(?:ing)?\\b[^.]*${REFUSED}|${REFUSED}[^.]*\\bstream`, "i");

/** A `400` whose error names the `stream` parameter or says streaming is not supported. */
export function isStreamingRefused(error: unknown): boolean {
  if (!isAPIStatusError(error) || error.status !== 400) return false;
  const body = error.body as { error?: unknown } | string | null;
  const detail = typeof body === "object" && body !== null && "error" in body ? body.error : body;
  if (typeof detail === "string") return REFUSAL.test(detail);
  const { param, message } = (detail ?? {}) as { param?: unknown; message?: unknown };
  return param === "stream" || (typeof message === "string" && REFUSAL.test(message));
}

/** The one non-streaming request, answered as the usual events; errors carry `attempts`. */
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

/** Loads within the call's `headersMs`; a failed load is this attempt's `ConnectionError`. */
export const requestWhole: RequestWhole = async (...call) => {
  const [target, , control] = call;
  const request = await loadWhole(control, target.timeouts.headersMs);
  return await request(...call);
};
