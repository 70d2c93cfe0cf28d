/**
 * What the client reads off a response besides its stream: the headers as a plain record,
 * the rate-limit headers, and an error reported in a `200` JSON body.
 *
 * @module
 */

import { APIStatusError } from "./error_classes.ts";
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
