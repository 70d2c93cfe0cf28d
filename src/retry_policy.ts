/**
 * What is worth retrying, and how long to wait first. Pure functions: no timers, no I/O.
 *
 * @module
 */

import {
  isAPIStatusError,
  isConnectionError,
  isTimeoutError,
  isUpstreamStreamError,
} from "./error_guards.ts";
import { parseHTTPDate } from "./http_date.ts";
import { isQuotaExhausted } from "./protocols/upstream_error.ts";

/** Statuses that describe a passing condition: timeout, conflict, rate limit, server trouble. */
const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504]);

/** Resolved backoff settings. */
export interface BackoffOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

/**
 * Whether a failed attempt may be tried again (before any content reached the caller).
 *
 * @example
 * ```ts
 * isRetryable(new TimeoutError("idle", 1000)); // true
 * ```
 */
export function isRetryable(error: unknown): boolean {
  if (isConnectionError(error)) return true;
  if (isTimeoutError(error)) return error.phase !== "total";
  if (isUpstreamStreamError(error)) return error.retryable;
  if (!isAPIStatusError(error)) return false;
  // The server knows best: OpenAI and Anthropic send this to override the status rule.
  const shouldRetry = error.headers["x-should-retry"];
  if (shouldRetry === "true") return true;
  if (shouldRetry === "false") return false;
  if (error.status === 429 && isQuotaExhausted(error.body)) return false;
  return RETRYABLE_STATUS.has(error.status) || (error.status >= 520 && error.status <= 529);
}

/** A non-negative decimal number and nothing else: `parseFloat` would read `12abc` as 12. */
const DELAY = /^\s*\d+(?:\.\d+)?\s*$/;

/**
 * The delay the server asked for, from `retry-after-ms` or `retry-after`: a non-negative
 * number (milliseconds, seconds), or for `retry-after` an HTTP-date in one of RFC 9110's three
 * formats, measured against the response's own `Date` header so a skewed local clock does not
 * matter. Anything else (`-1`, `12 1`, `3/4`) is ignored: the normal backoff applies.
 *
 * @example
 * ```ts
 * retryAfterMs({ "retry-after": "2" }); // 2000
 * retryAfterMs({ "retry-after": "-1" }); // undefined
 * ```
 */
export function retryAfterMs(
  headers: Record<string, string>,
  now = Date.now(),
): number | undefined {
  const ms = headers["retry-after-ms"];
  if (ms !== undefined && DELAY.test(ms)) return Number(ms);
  const after = headers["retry-after"];
  if (after === undefined) return undefined;
  if (DELAY.test(after)) return Number(after) * 1000;
  const date = parseHTTPDate(after, now);
  if (date === undefined) return undefined;
  const serverNow = headers["date"] !== undefined ? parseHTTPDate(headers["date"], now) : undefined;
  return Math.max(0, date - (serverNow ?? now));
}

/**
 * Delay before retry number `retry` (1 for the first retry): the server's `Retry-After` when
 * it sent one (never less), otherwise full jitter in
 * `[initialDelayMs, min(maxDelayMs, initialDelayMs * 2^retry)]`. Returns `undefined` when the
 * server asks for more than `maxRetryAfterMs`: better to fail now than to park the caller.
 *
 * @example
 * ```ts
 * backoffDelay(undefined, 1, { initialDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60_000 }); // 500..1000
 * ```
 */
export function backoffDelay(
  error: unknown,
  retry: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number | undefined {
  if (isAPIStatusError(error)) {
    const asked = retryAfterMs(error.headers);
    if (asked !== undefined) return asked > options.maxRetryAfterMs ? undefined : Math.ceil(asked);
  }
  const { initialDelayMs, maxDelayMs } = options;
  const ceiling = Math.max(initialDelayMs, Math.min(maxDelayMs, initialDelayMs * 2 ** retry));
  return Math.round(initialDelayMs + random() * (ceiling - initialDelayMs));
}
