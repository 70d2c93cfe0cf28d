import {
  isAPIStatusError,
  isConnectionError,
  isTimeoutError,
  isUpstreamStreamError,
} from "../core/error_guards.ts";
import { parseHTTPDate } from "./http_date.ts";
import { isQuotaExhausted } from "../protocols/upstream_error.ts";

const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504]);

export interface BackoffOptions {
  initialDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

/** Whether a failed attempt may be tried again (before any content reached the caller). */
export function isRetryable(error: unknown): boolean {
  if (isConnectionError(error)) return true;
  if (isTimeoutError(error)) return error.phase !== "total";
  if (isUpstreamStreamError(error)) return error.retryable;
  if (!isAPIStatusError(error)) return false;
  // OpenAI and Anthropic send this to override the status rule.
  const shouldRetry = error.headers["x-should-retry"];
  if (shouldRetry === "true") return true;
  if (shouldRetry === "false") return false;
  if (error.status === 429 && isQuotaExhausted(error.body)) return false;
  return RETRYABLE_STATUS.has(error.status) || (error.status >= 520 && error.status <= 529);
}

/** `parseFloat` would read `12abc` as 12. */
const DELAY = /^\s*\d+(?:\.\d+)?\s*$/;

/** From `retry-after-ms` or `retry-after`; an HTTP-date is measured against the server's `Date`. */
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
 * The server's `Retry-After` (never less), else full jitter; `undefined` when the server asks
 * for more than `maxRetryAfterMs`: better to fail now than to park the caller.
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
