/**
 * Response bodies read whole, under an attempt's stop and timers: an error body (cut at 64 KiB,
 * JSON when it parses) and a non-streaming answer (refused past its cap, each chunk progress
 * for the idle timer).
 *
 * @module
 */

import { noop } from "./call_control.ts";
import { CONNECTION_LOST, oversizedMessage } from "./error_messages.ts";
import { ConnectionError, StreamProtocolError } from "./error_classes.ts";
import { parseOr } from "./protocols/output.ts";
import type { Attempt } from "./transport.ts";
import type { Watchdog } from "./watchdog.ts";

/** Error bodies are read up to this size: enough for any provider's message, bounded for HTML. */
const ERROR_BODY_CAP = 64 * 1024;
/** `TextDecoder.decode` options for a chunk that is not the last: one object for every chunk. */
export const STREAM: TextDecodeOptions = { stream: true };

/**
 * An error response's body, at most 64 KiB of it: parsed JSON when it is JSON, its text
 * otherwise.
 *
 * @example
 * ```ts
 * throw new APIStatusError(response.status, headers, await readErrorBody(attempt, response));
 * ```
 */
export async function readErrorBody(attempt: Attempt, response: Response): Promise<unknown> {
  const text = await readText(attempt, response, ERROR_BODY_CAP);
  return parseOr(text, text);
}

/**
 * A whole body as text. Past `maxBytes` it is cut there (error bodies: enough to describe the
 * error) or, when a `watchdog` follows the read (a whole answer), refused; a body whose
 * connection is lost is what arrived of it, or, for a whole answer, a `ConnectionError`. A
 * stop of `attempt` cancels the read.
 *
 * @example
 * ```ts
 * const text = await readText(attempt, response, maxBytes, watchdog);
 * ```
 */
export async function readText(
  attempt: Attempt,
  response: Response,
  maxBytes: number,
  watchdog?: Watchdog,
): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  attempt.hold(reader);
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (attempt.failure !== undefined) throw attempt.failure;
      if (done) return text + decoder.decode();
      bytes += value.byteLength;
      if (bytes > maxBytes && watchdog !== undefined) {
        throw new StreamProtocolError(oversizedMessage("the non-streaming answer", maxBytes));
      }
      text += decoder.decode(value, STREAM);
      if (bytes >= maxBytes) return text.slice(0, maxBytes);
      watchdog?.progress();
    }
  } catch (error) {
    if (attempt.failure !== undefined || error instanceof StreamProtocolError) throw error;
    // An error body cut short still comes with its status and headers (a 401 is not retried,
    // a 429's Retry-After is honoured): what arrived of it is enough. A whole answer is not.
    if (watchdog === undefined) return text;
    throw new ConnectionError(CONNECTION_LOST, { cause: error });
  } finally {
    reader.cancel().catch(noop);
  }
}
