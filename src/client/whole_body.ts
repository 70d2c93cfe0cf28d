import { noop } from "../core/constants.ts";
import { CONNECTION_LOST, oversizedMessage } from "../core/error_messages.ts";
import { ConnectionError, StreamProtocolError } from "../core/error_classes.ts";
import { parseOr } from "../protocols/output.ts";
import type { Watchdog } from "./watchdog.ts";

/** What reads a body for an attempt: its stop cancels the read (`Attempt`, transport.ts). */
export interface BodyHolder {
  readonly failure: Error | undefined;
  hold(reader: ReadableStreamDefaultReader<Uint8Array>): void;
}

/** Enough for any provider's message, bounded for HTML pages. */
const ERROR_BODY_CAP = 64 * 1024;
/** One options object shared by every chunk. */
export const STREAM: TextDecodeOptions = { stream: true };

export async function readErrorBody(attempt: BodyHolder, response: Response): Promise<unknown> {
  const text = await readText(attempt, response, ERROR_BODY_CAP);
  return parseOr(text, text);
}

/**
 * Past `maxBytes` an error body is cut, a whole answer (with `watchdog`) refused; a lost
 * connection keeps what arrived of an error body, but fails a whole answer.
 */
export async function readText(
  attempt: BodyHolder,
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
    // An error body cut short still has its status and headers (401, a 429's Retry-After).
    if (watchdog === undefined) return text;
    throw new ConnectionError(CONNECTION_LOST, { cause: error });
  } finally {
    reader.cancel().catch(noop);
  }
}
