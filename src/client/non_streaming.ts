// Some providers answer `400` to `stream: true` for some models: the call then makes one
// non-streaming request, answered as the usual events with `result.streamed = false`.

import { Accumulator } from "../core/accumulator.ts";
import type { ChatResult } from "../core/chat_result.ts";
import { APIStatusError, StreamProtocolError } from "../core/error_classes.ts";
import { isAPIStatusError } from "../core/error_guards.ts";
import { malformedMessage } from "../core/error_messages.ts";
import type { Protocol, ProtocolRequest } from "../protocols/protocol.ts";
import type { CallControl } from "./call_control.ts";
import { errorInBody, resultOf } from "./response.ts";
import type { CallTarget } from "./plan.ts";
import { Attempt, type AttemptConsumer } from "./transport.ts";
import type { Watchdog } from "./watchdog.ts";
import { readText } from "./whole_body.ts";

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

export async function requestWhole(
  target: CallTarget,
  control: CallControl,
  consumer: AttemptConsumer,
  maxBytes: number,
): Promise<ChatResult> {
  const attempt = ++control.attempts;
  const protocol = target.protocol;
  // The same Attempt as a streaming request: stoppable the same way, no credential in errors.
  const request = new Attempt(control, target, wholeRequest(target));
  try {
    const { status, headers, body } = await request.guard(
      "first-event",
      (watchdog) => readAnswer(request, protocol, maxBytes, watchdog),
    );
    if (consumer.listening) consumer.push({ type: "open", attempt, status, headers });
    const acc = new Accumulator(consumer.listening ? consumer : null);
    protocol.decodeMessage!(body, acc);
    const result = resultOf(acc, attempt, target, headers);
    result.streamed = false;
    return result;
  } catch (error) {
    throw control.stopError ?? request.failure ?? error;
  }
}

/** `firstEventMs` bounds the wait for headers (sent once the reply is ready), then `idleMs`. */
async function readAnswer(
  request: Attempt,
  protocol: Protocol,
  maxBytes: number,
  watchdog: Watchdog,
): Promise<{ status: number; headers: Record<string, string>; body: unknown }> {
  const response = await request.send();
  watchdog.arm("idle");
  const text = await readText(request, response, maxBytes, watchdog);
  const { ok, status } = response;
  const headers = Object.fromEntries(response.headers);
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
  const reported = errorInBody(body, status, headers, protocol);
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
