/**
 * Streaming refused: some providers answer `400` to `stream: true` for some models (OpenAI's
 * first o1 models, or any model an unverified organisation may not stream). The call then
 * makes one non-streaming request and delivers the whole answer as the same events and
 * result, with `result.streamed = false`.
 *
 * @module
 */

import { Accumulator } from "./accumulator.ts";
import type { CallControl } from "./call_control.ts";
import { malformedMessage } from "./error_messages.ts";
import { APIStatusError, StreamProtocolError } from "./error_classes.ts";
import { isAPIStatusError } from "./error_guards.ts";
import { withAttempts } from "./partial_outcome.ts";
import type { Protocol, ProtocolRequest } from "./protocols/protocol.ts";
import type { CallTarget } from "./retry_loop.ts";
import { errorInBody, headersToRecord, pickRateLimit } from "./response.ts";
import { Attempt, type AttemptConsumer, type AttemptSetup } from "./transport.ts";
import type { ChatResult } from "./chat_result.ts";
import type { Watchdog } from "./watchdog.ts";
import { readText } from "./whole_body.ts";

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
 * if (isStreamingRefused(error)) return await requestWhole(target, protocol, control, consumer, attempts + 1, maxBytes);
 * ```
 */
export async function requestWhole(
  target: CallTarget,
  protocol: Protocol,
  control: CallControl,
  consumer: AttemptConsumer,
  attempt: number,
  maxBytes: number,
): Promise<ChatResult> {
  // The same Attempt as a streaming request: a stop or a timer cancels it the same way, and
  // no error leaves it with a credential in it.
  const request = new Attempt(control);
  const setup: AttemptSetup = {
    fetch: target.fetch,
    request: wholeRequest(target),
    protocol,
    timeouts: target.timeouts,
    maxEventBytes: maxBytes,
    attempt,
  };
  try {
    const { status, headers, body } = await request.guard(
      setup,
      "first-event",
      (watchdog) => readAnswer(request, setup, maxBytes, watchdog),
    );
    if (consumer.listening) consumer.push({ type: "open", attempt, status, headers });
    const acc = new Accumulator(consumer.listening ? consumer : null);
    protocol.decodeMessage!(body, acc);
    const result = acc.toResult(attempt);
    result.target = target.info;
    result.streamed = false;
    const rateLimit = pickRateLimit(headers);
    if (rateLimit !== undefined) result.rateLimit = rateLimit;
    return result;
  } catch (error) {
    throw withAttempts(control.stopError ?? request.failure ?? error, attempt);
  }
}

/**
 * Sends the request and reads the whole answer, at most `maxBytes`. `firstEventMs` bounds the
 * wait for headers (such a server only answers once the whole reply is ready), then `idleMs`
 * the silences while reading. Resolves with a 2xx answer's JSON body; rejects with its status
 * or the error its body reports.
 */
async function readAnswer(
  request: Attempt,
  setup: AttemptSetup,
  maxBytes: number,
  watchdog: Watchdog,
): Promise<{ status: number; headers: Record<string, string>; body: unknown }> {
  const response = await request.send(setup);
  watchdog.arm("idle");
  const text = await readText(request, response, maxBytes, watchdog);
  const { ok, status } = response;
  const headers = headersToRecord(response.headers);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    if (ok) {
      throw new StreamProtocolError(
        malformedMessage("the non-streaming answer is not JSON", text),
        { cause },
      );
    }
  }
  if (!ok) throw new APIStatusError(status, headers, body);
  const reported = errorInBody(body, status, headers, setup.protocol);
  if (reported !== undefined) throw reported;
  return { status, headers, body };
}

/** The streaming request, minus streaming: `stream_options` is rejected without `stream`. */
function wholeRequest(target: CallTarget): ProtocolRequest {
  const { url, headers: streamingHeaders, body } = target.request;
  const headers = new Headers(streamingHeaders);
  headers.set("accept", "application/json");
  const whole = JSON.parse(body) as Record<string, unknown>;
  whole.stream = false;
  delete whole.stream_options;
  return { url, headers, body: JSON.stringify(whole) };
}
