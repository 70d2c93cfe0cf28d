// What a drop mid-answer does to a streaming caller's answer: ends it with an error event (the
// default), or continues it through the client's `onPartial: "continue"`, per relay or request.

import { invalidRequest, type RelayFailure } from "./error_response.ts";

const ON_PARTIAL_HEADER = "x-stopstream-on-partial";

/** `createRelay`'s `onPartial`, and the header's values. */
export type RelayPartialPolicy = "error" | "continue";

export const PARTIAL_POLICIES: readonly RelayPartialPolicy[] = ["error", "continue"];

/** The request's header wins over the relay's option; any other value is the caller's error. */
export function partialPolicy(
  headers: Headers,
  fallback: RelayPartialPolicy,
): RelayPartialPolicy | RelayFailure {
  const asked = headers.get(ON_PARTIAL_HEADER)?.trim().toLowerCase();
  if (asked === undefined || asked === "") return fallback;
  if ((PARTIAL_POLICIES as readonly string[]).includes(asked)) return asked as RelayPartialPolicy;
  const message = `${ON_PARTIAL_HEADER} must be "continue" or "error", got ${
    JSON.stringify(asked.slice(0, 40))
  }.`;
  return invalidRequest(400, message, "invalid_on_partial");
}
