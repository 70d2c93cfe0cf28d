// The one non-streaming request made when a provider refuses to stream, loaded on first use.

import type { Attempt, AttemptSetup } from "./transport.ts";
import type { CoreKit } from "./core_kit.ts";
import { core, useCore } from "./lazy_core.ts";
import type { ProtocolRequest } from "../protocols/protocol.ts";
import type { CallTarget } from "./retry_loop.ts";
import type { RequestWhole } from "./streaming_refused.ts";
import type { Watchdog } from "./watchdog.ts";

export function wholeAnswers(kit: CoreKit): RequestWhole {
  useCore(kit);
  return requestWhole;
}

const requestWhole: RequestWhole = async (
  target,
  protocol,
  control,
  consumer,
  attempt,
  maxBytes,
) => {
  // The same Attempt as a streaming request: stoppable the same way, no credential in errors.
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

/** `firstEventMs` bounds the wait for headers (sent once the reply is ready), then `idleMs`. */
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
