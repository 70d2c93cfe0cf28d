import { malformedMessage } from "../core/error_messages.ts";
import { StreamProtocolError } from "../core/error_classes.ts";

/** Read without trusting the types: a wrong type must fail one check, not crash the decoder. */
// deno-lint-ignore no-explicit-any
export type EventData = any;

/** Throws `StreamProtocolError`: data that does not parse will not parse on a retry either. */
export function parseEventData(data: string): EventData {
  let value: EventData;
  let cause: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    cause = error;
  }
  // An array is no event: decoders would find no field in a batch (`[{…},{…}]`) and lose it.
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const message = malformedMessage("a data line is not a JSON object", data);
    throw new StreamProtocolError(message, { cause });
  }
  return value;
}

/** Plain text (`data: Overloaded`) is still the provider's error, not a `StreamProtocolError`. */
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
