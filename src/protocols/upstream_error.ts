import { UpstreamStreamError } from "../core/error_classes.ts";

const TRANSIENT_TYPE =
  /rate_limit|overloaded|server_error|api_error|internal|unavailable|timeout|service_error|^5\d\d$|^429$|^408$/i;
const TRANSIENT_MESSAGE =
  /connection (lost|reset|closed|error)|network|timed? ?out|overloaded|temporarily|try again|upstream|unavailable|internal server error/i;

/** `raw` (default: `payload`) becomes its `data` when the caller normalised the payload first. */
export function upstreamError(payload: unknown, raw: unknown = payload): UpstreamStreamError {
  const wrapped = payload !== null && typeof payload === "object" && "error" in payload
    ? (payload as { error: unknown }).error
    : payload;
  if (typeof wrapped === "string") {
    return new UpstreamStreamError(wrapped, raw, undefined, TRANSIENT_MESSAGE.test(wrapped));
  }
  const fields = (wrapped ?? {}) as Record<string, unknown>;
  const message = typeof fields.message === "string" ? fields.message : JSON.stringify(wrapped);
  const type = firstString(fields.type, fields.code, fields.status);
  const code = fields.code;
  const retryable = !isQuotaExhausted({ error: wrapped }) &&
    ((type !== undefined && TRANSIENT_TYPE.test(type)) ||
      (typeof code === "number" && (code === 429 || code === 408 || code >= 500)) ||
      TRANSIENT_MESSAGE.test(message));
  return new UpstreamStreamError(message, raw, type, retryable);
}

function firstString(...values: unknown[]): string | undefined {
  for (const value of values) {
    if (typeof value === "string") return value;
    if (typeof value === "number") return String(value);
  }
  return undefined;
}

/** A quota or spending limit used up: a 429 that waiting will not fix. */
export function isQuotaExhausted(body: unknown): boolean {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === "string") return QUOTA.test(error);
  if (error === null || typeof error !== "object") return false;
  const { code, type, message } = error as Record<string, unknown>;
  return code === "insufficient_quota" || type === "insufficient_quota" ||
    (typeof message === "string" && QUOTA.test(message));
}

const QUOTA =
  /insufficient[_ ]quota|exceeded your (current )?quota|spend(ing)? limit|usage limit|credit balance|billing/i;
