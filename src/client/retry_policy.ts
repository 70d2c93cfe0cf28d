import {
  isAPIStatusError,
  isConnectionError,
  isStreamProtocolError,
  isTimeoutError,
  isUpstreamStreamError,
} from "../core/error_guards.ts";
import { isQuotaExhausted } from "../protocols/upstream_error.ts";
import type { RetryOptions } from "../core/chat_options.ts";

const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504]);

export type BackoffOptions = Record<keyof RetryOptions, number>;

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

/** Events of another protocol than the call's: no retry, but another upstream may serve. */
export function isForeignStream(error: unknown): boolean {
  return isStreamProtocolError(error) && error.foundProtocol !== undefined;
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

const MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec";
// IMF-fixdate and RFC 850 (groups 1–3: day, month, year), asctime (4–5: month, day; 9: year);
// 6–8: the time. Exactly one year must match. The day's name is checked for shape only.
const HTTP_DATE =
  /^[A-Z][a-z]{2,8},? (?:(\d\d)[ -]([A-Z][a-z]{2})[ -](\d{4}|\d\d)|([A-Z][a-z]{2}) ([ \d]\d)) (\d\d):(\d\d):(\d\d) (?:GMT|(\d{4}))$/;

/**
 * Epoch ms of an HTTP-date in one of RFC 9110's three formats (§5.6.7), else `undefined`. Strict:
 * `Date.parse` takes `-1` or `3/4` for past dates, which would make a garbage `Retry-After` "now".
 */
export function parseHTTPDate(text: string, now: number = Date.now()): number | undefined {
  const date = HTTP_DATE.exec(text.trim());
  if (date === null || (date[3] === undefined) === (date[9] === undefined)) return undefined;
  let year = Number(date[3] ?? date[9]);
  if (year < 100) {
    // RFC 9110: a two-digit year that looks more than 50 years ahead is in the past century.
    const current = new Date(now).getUTCFullYear();
    year += current - (current % 100);
    if (year > current + 50) year -= 100;
  }
  const month = MONTHS.indexOf(date[2] ?? date[4]!) / 3;
  const day = Number(date[1] ?? date[5]);
  const [h, m, s] = [Number(date[6]), Number(date[7]), Number(date[8])];
  const ms = Date.UTC(year, month, day, h, m, s);
  // Date.UTC rolls 31 February over into March: such a date is not a date.
  const valid = Number.isInteger(month) && h < 24 && m < 60 && s < 61 &&
    new Date(ms).getUTCDate() === day;
  return valid ? ms : undefined;
}
