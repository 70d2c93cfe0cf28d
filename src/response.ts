/**
 * What the client reads off a response besides its stream: the headers as a plain record,
 * the rate-limit headers, an error reported in a `200` JSON body, and what a body that is not
 * an event stream was.
 *
 * @module
 */

import { APIStatusError, StreamProtocolError } from "./error_classes.ts";
import { malformedMessage } from "./error_messages.ts";
import type { Protocol } from "./protocols/protocol.ts";

/**
 * The error a `200` JSON body reports (`{"error": {…}}`): the protocol's typed error, or an
 * `APIStatusError` when the protocol does not recognise it; `undefined` for any other body.
 *
 * @example
 * ```ts
 * errorInBody({ error: { type: "overloaded_error" } }, 200, {}, protocol)?.name; // "UpstreamStreamError"
 * ```
 */
export function errorInBody(
  body: unknown,
  status: number,
  headers: Record<string, string>,
  protocol: Protocol,
): Error | undefined {
  if (typeof body !== "object" || body === null || (body as { error?: unknown }).error == null) {
    return undefined;
  }
  return protocol.toUpstreamError(body) ?? new APIStatusError(status, headers, body);
}

/**
 * The response's `x-ratelimit-*` headers, or `undefined` when it sent none.
 *
 * @example
 * ```ts
 * pickRateLimit({ "x-ratelimit-remaining-requests": "9", date: "…" }); // { "x-ratelimit-remaining-requests": "9" }
 * ```
 */
export function pickRateLimit(headers: Record<string, string>): Record<string, string> | undefined {
  let picked: Record<string, string> | undefined;
  for (const name in headers) {
    if (name.startsWith("x-ratelimit-")) (picked ??= {})[name] = headers[name]!;
  }
  return picked;
}

/**
 * Plain-object copy of response headers, lower-case names.
 *
 * @example
 * ```ts
 * headersToRecord(new Headers({ "Retry-After": "1" })); // { "retry-after": "1" }
 * ```
 */
export function headersToRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/**
 * What a body that should have been an event stream and is not was (`what` says what came
 * instead): the error it reports, else a `StreamProtocolError` quoting it.
 *
 * @example
 * ```ts
 * throw notAStream("<html>…", 200, headers, protocol, "text/html, not an event stream");
 * ```
 */
export function notAStream(
  body: unknown,
  status: number,
  headers: Record<string, string>,
  protocol: Protocol,
  what: string,
): Error {
  return errorInBody(body, status, headers, protocol) ?? new StreamProtocolError(
    malformedMessage(
      `the server answered HTTP ${status} with ${what}`,
      typeof body === "string" ? body : JSON.stringify(body),
    ),
  );
}
