/**
 * The non-streaming fallback, loaded on first use: the one non-streaming request a call makes
 * when a provider refuses to stream (see streaming_refused.ts), its answer delivered as the
 * same events and result, with `result.streamed = false`. Like the other modules loaded on
 * first use it imports only types from the core and is handed its helpers (core_kit.ts).
 *
 * @module
 */

import type { Attempt, AttemptSetup } from "./transport.ts";
import type { CoreKit } from "./core_kit.ts";
import { core, useCore } from "./lazy_core.ts";
import type { ProtocolRequest } from "./protocols/protocol.ts";
import type { CallTarget } from "./retry_loop.ts";
import type { RequestWhole } from "./streaming_refused.ts";
import type { Watchdog } from "./watchdog.ts";

/**
 * {@linkcode RequestWhole}, given the core's helpers.
 *
 * @example
 * ```ts
 * const requestWhole = wholeAnswers(CORE_KIT);
 * const result = await requestWhole(target, protocol, control, consumer, attempt, maxBytes);
 * ```
 */
export function wholeAnswers(kit: CoreKit): RequestWhole {
  useCore(kit);
  return requestWhole;
}

/** See {@linkcode RequestWhole}. */
const requestWhole: RequestWhole = async (
  target,
  protocol,
  control,
  consumer,
  attempt,
  maxBytes,
) => {
  // The same Attempt as a streaming request: a stop or a timer cancels it the same way, and
  // no error leaves it with a credential in it.
  const request = new core.Attempt(control);
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
    const acc = new core.Accumulator(consumer.listening ? consumer : null);
    protocol.decodeMessage!(body, acc);
    const result = acc.toResult(attempt);
    result.target = target.info;
    result.streamed = false;
    const rateLimit = core.pickRateLimit(headers);
    if (rateLimit !== undefined) result.rateLimit = rateLimit;
    return result;
  } catch (error) {
    throw core.withAttempts(control.stopError ?? request.failure ?? error, attempt);
  }
};

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
  const text = await core.readText(request, response, maxBytes, watchdog);
  const { ok, status } = response;
  const headers = core.headersToRecord(response.headers);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch (cause) {
    if (ok) {
      throw new core.StreamProtocolError(
        core.malformedMessage("the non-streaming answer is not JSON", text),
        { cause },
      );
    }
  }
  if (!ok) throw new core.APIStatusError(status, headers, body);
  const reported = core.errorInBody(body, status, headers, setup.protocol);
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
