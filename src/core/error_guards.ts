// Error guards that check `name` and a brand, not the prototype: two copies of stopstream
// (npm + JSR) may meet in one app.

import {
  type APIStatusError,
  BRAND,
  type ConnectionError,
  type InterruptedError,
  type PartialStreamError,
  type RedirectError,
  type StopstreamError,
  type StreamProtocolError,
  type TimeoutError,
  type UpstreamStreamError,
} from "./error_classes.ts";

function hasName(value: unknown, name: string): boolean {
  return isStopstreamError(value) && value.name === name;
}

/**
 * Whether `value` is any stopstream error, from this copy of the package or another.
 *
 * @example
 * ```ts
 * if (isStopstreamError(e)) console.log(e.name);
 * ```
 */
export function isStopstreamError(value: unknown): value is StopstreamError {
  return value instanceof Error && (value as { [BRAND]?: boolean })[BRAND] === true;
}

/**
 * Whether `value` is an {@linkcode InterruptedError}.
 *
 * @example
 * ```ts
 * if (isInterruptedError(e)) return; // the user pressed stop
 * ```
 */
export function isInterruptedError(value: unknown): value is InterruptedError {
  return hasName(value, "InterruptedError");
}

/**
 * Whether `value` is an {@linkcode APIStatusError}.
 *
 * @example
 * ```ts
 * if (isAPIStatusError(e)) console.log(e.status);
 * ```
 */
export function isAPIStatusError(value: unknown): value is APIStatusError {
  return hasName(value, "APIStatusError");
}

/**
 * Whether `value` is a {@linkcode ConnectionError}.
 *
 * @example
 * ```ts
 * if (isConnectionError(e)) console.log(e.cause);
 * ```
 */
export function isConnectionError(value: unknown): value is ConnectionError {
  return hasName(value, "ConnectionError");
}

/**
 * Whether `value` is a {@linkcode TimeoutError}.
 *
 * @example
 * ```ts
 * if (isTimeoutError(e)) console.log(e.phase);
 * ```
 */
export function isTimeoutError(value: unknown): value is TimeoutError {
  return hasName(value, "TimeoutError");
}

/**
 * Whether `value` is a {@linkcode StreamProtocolError}.
 *
 * @example
 * ```ts
 * if (isStreamProtocolError(e)) console.log(e.message);
 * ```
 */
export function isStreamProtocolError(value: unknown): value is StreamProtocolError {
  return hasName(value, "StreamProtocolError");
}

/**
 * Whether `value` is an {@linkcode UpstreamStreamError}.
 *
 * @example
 * ```ts
 * if (isUpstreamStreamError(e)) console.log(e.errorType);
 * ```
 */
export function isUpstreamStreamError(value: unknown): value is UpstreamStreamError {
  return hasName(value, "UpstreamStreamError");
}

/**
 * Whether `value` is a {@linkcode PartialStreamError}.
 *
 * @example
 * ```ts
 * if (isPartialStreamError(e)) console.log(e.partial.content);
 * ```
 */
export function isPartialStreamError(value: unknown): value is PartialStreamError {
  return hasName(value, "PartialStreamError");
}

/**
 * Whether `value` is a {@linkcode RedirectError}.
 *
 * @example
 * ```ts
 * if (isRedirectError(e)) console.log(e.targetOrigin);
 * ```
 */
export function isRedirectError(value: unknown): value is RedirectError {
  return hasName(value, "RedirectError");
}
