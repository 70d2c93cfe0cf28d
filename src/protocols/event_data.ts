/**
 * Parsing one SSE event's `data` as a JSON object, and the payload of an `event: error`:
 * shared by every protocol decoder.
 *
 * @module
 */

import { malformedMessage } from "../error_messages.ts";
import { StreamProtocolError } from "../error_classes.ts";

/**
 * A parsed event, read field by field without trusting the types: providers add fields and
 * events, and a wrong type must fail one check, not crash the decoder.
 */
// deno-lint-ignore no-explicit-any
export type EventData = any;

/**
 * Parses `data` as a JSON object (not an array), or throws `StreamProtocolError` (data that
 * does not parse will not parse on a retry either).
 *
 * @example
 * ```ts
 * parseEventData('{"type":"ping"}').type; // "ping"
 * ```
 */
export function parseEventData(data: string): EventData {
  let value: EventData;
  try {
    value = JSON.parse(data);
  } catch (cause) {
    throw notAnObject(data, cause);
  }
  // An array passed the object check and every decoder then found no field in it: a batch of
  // chunks (`[{…},{…}]`) would have been skipped, the answer silently lost.
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw notAnObject(data, undefined);
  }
  return value;
}

function notAnObject(data: string, cause: unknown): StreamProtocolError {
  return new StreamProtocolError(
    malformedMessage("a data line is not a JSON object", data),
    { cause },
  );
}

/**
 * The payload of an `event: error`: its JSON object, or else the text itself. Providers and
 * gateways send plain text there too (`data: Overloaded`); that is still the provider's error
 * (maybe a transient one), not bad framing, so it must not become a `StreamProtocolError`.
 *
 * @example
 * ```ts
 * errorEventPayload("Overloaded"); // "Overloaded"
 * errorEventPayload('{"type":"error","error":{"type":"api_error"}}').error.type; // "api_error"
 * ```
 */
export function errorEventPayload(data: string): EventData {
  try {
    const value = JSON.parse(data);
    if (value !== null && typeof value === "object") return value;
  } catch {
    // Plain text: the message itself.
  }
  // Without the prefix: this becomes the provider's message inside an UpstreamStreamError.
  return data === "" ? "an error event without data" : data;
}
