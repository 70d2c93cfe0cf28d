/**
 * The typed error classes. Every error stopstream throws extends {@linkcode StopstreamError},
 * has a `name` equal to its class name, and keeps the underlying failure in `cause`. Its
 * `message` is one sentence for a person: what happened and what to do, with one `stopstream:`
 * prefix; the chain of causes stays in `cause`, never in the text. The guards that tell them
 * apart across two copies of the package are in `error_guards.ts`.
 *
 * The fields each constructor sets are `declare`d: declared plainly, every one would first be
 * defined as `undefined` (ES class fields), which only costs bundle bytes.
 *
 * @module
 */

import {
  interruptedMessage,
  partialMessage,
  redirectMessage,
  statusMessage,
  timeoutMessage,
  upstreamMessage,
} from "./error_messages.ts";
import type { ChatResult } from "./chat_result.ts";

/**
 * The brand every stopstream error carries, from the global symbol registry so that two copies
 * of the package (npm and JSR in one app) share it.
 *
 * @example
 * ```ts
 * const branded = (value as { [BRAND]?: boolean })[BRAND] === true;
 * ```
 */
export const BRAND: unique symbol = Symbol.for("stopstream.error") as never;

/**
 * Base class of every stopstream error.
 *
 * @example
 * ```ts
 * try { await stream.result } catch (e) { if (isStopstreamError(e)) console.log(e.name) }
 * ```
 */
export class StopstreamError extends Error {
  /** Always the class's own name, so errors can be told apart without `instanceof`. */
  override name = "StopstreamError";
  /**
   * How many HTTP requests the call had made when it ended: set on every error that ends a
   * call (`0` when it was stopped before its first request).
   */
  attempts?: number;
  /** Brand for cross-copy guards. */
  readonly [BRAND] = true;

  /** Wraps `message` and the `cause` it came from. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * The caller stopped the call: its `AbortSignal` fired, or it stopped iterating.
 * `cause` is the signal's reason. Never retried.
 *
 * @example
 * ```ts
 * controller.abort(); // → stream.result rejects with InterruptedError
 * ```
 */
export class InterruptedError extends StopstreamError {
  /** `"InterruptedError"`. */
  override name = "InterruptedError";
  /** `reason` is the abort signal's reason; it becomes the `cause`. */
  constructor(
    reason?: unknown,
    message: string = interruptedMessage("by its AbortSignal"),
  ) {
    super(message, { cause: reason });
  }
}

/**
 * The server answered with a non-2xx status. `body` is the parsed JSON error when the body
 * was JSON, its text otherwise, capped at 64 KiB.
 *
 * @example
 * ```ts
 * if (isAPIStatusError(e) && e.status === 401) console.log("bad key", e.body);
 * ```
 */
export class APIStatusError extends StopstreamError {
  /** `"APIStatusError"`. */
  override name = "APIStatusError";
  /** The HTTP status, e.g. 401 or 503. */
  declare readonly status: number;
  /** The response headers, lower-cased names. */
  declare readonly headers: Record<string, string>;
  /** The error body: parsed JSON when it was JSON, else its text (at most 64 KiB). */
  declare readonly body: unknown;

  /** Built by the transport from a non-2xx response. */
  constructor(
    status: number,
    headers: Record<string, string>,
    body: unknown,
    options?: { cause?: unknown; message?: string },
  ) {
    super(options?.message ?? statusMessage(status, body), options);
    this.status = status;
    this.headers = headers;
    this.body = body;
  }
}

/**
 * The connection failed or closed before the stream completed (a network error, a reset, a
 * body that ended before its terminal event). Retryable before content reached the caller.
 *
 * @example
 * ```ts
 * if (isConnectionError(e)) console.log("network trouble:", e.cause);
 * ```
 */
export class ConnectionError extends StopstreamError {
  /** `"ConnectionError"`. */
  override name = "ConnectionError";
}

/** The phase a {@linkcode TimeoutError} fired in. */
export type TimeoutPhase = "headers" | "first-event" | "idle" | "total";

/**
 * One of the client's own timers fired. `headers`, `first-event` and `idle` are retried;
 * `total` ends the call.
 *
 * @example
 * ```ts
 * if (isTimeoutError(e) && e.phase === "idle") console.log("the stream stalled");
 * ```
 */
export class TimeoutError extends StopstreamError {
  /** `"TimeoutError"`. */
  override name = "TimeoutError";
  /** Which timer fired: `headers`, `first-event`, `idle` or `total`. */
  declare readonly phase: TimeoutPhase;
  /** The limit that was exceeded, in ms. */
  declare readonly timeoutMs: number;

  /** Built by the watchdog or the total timer when `phase`'s limit ran out. */
  constructor(phase: TimeoutPhase, timeoutMs: number) {
    super(timeoutMessage(phase, timeoutMs));
    this.phase = phase;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The response is not a well-formed stream: a 200 that is not `text/event-stream`, a data
 * line that is not JSON, an event larger than the cap. Not retried: the same request would
 * get the same answer.
 *
 * @example
 * ```ts
 * if (isStreamProtocolError(e)) console.log("proxy returned HTML?", e.message);
 * ```
 */
export class StreamProtocolError extends StopstreamError {
  /** `"StreamProtocolError"`. */
  override name = "StreamProtocolError";
}

/**
 * The provider reported an error inside the stream (`data: {"error": …}`, `event: error`).
 * `retryable` says whether it describes a transient condition (connection lost, overloaded,
 * rate limited, server error).
 *
 * @example
 * ```ts
 * if (isUpstreamStreamError(e)) console.log(e.errorType, e.data);
 * ```
 */
export class UpstreamStreamError extends StopstreamError {
  /** `"UpstreamStreamError"`. */
  override name = "UpstreamStreamError";
  /** The error object as sent by the provider. */
  declare readonly data: unknown;
  /** The provider's error type or code, when it gave one. */
  declare readonly errorType: string | undefined;
  /** The provider's own error message (its JSON when it sent no message). */
  declare readonly providerMessage: string;
  /** Whether the error describes a transient condition, so the request may be retried. */
  declare readonly retryable: boolean;

  /** Built by a protocol from the provider's in-stream error; `message` is the provider's own. */
  constructor(message: string, data: unknown, errorType: string | undefined, retryable: boolean) {
    super(upstreamMessage(message, retryable));
    this.data = data;
    this.errorType = errorType;
    this.providerMessage = message;
    this.retryable = retryable;
  }
}

/**
 * The stream failed after content had reached the caller, so it was not retried (a retry
 * would repeat output). `partial` holds everything assembled so far; `cause` is the failure.
 *
 * @example
 * ```ts
 * if (isPartialStreamError(e)) console.log("kept:", e.partial.content);
 * ```
 */
export class PartialStreamError extends StopstreamError {
  /** `"PartialStreamError"`. */
  override name = "PartialStreamError";
  /** Everything assembled before the failure. */
  declare readonly partial: ChatResult;

  /** `cause` is the failure that cut the stream. */
  constructor(partial: ChatResult, cause: unknown) {
    super(partialMessage(cause), { cause });
    this.partial = partial;
  }
}

/** Why a {@linkcode RedirectError} was thrown. */
export type RedirectReason =
  | "cross-origin"
  | "loop"
  | "too-many"
  | "opaque"
  | "credentials"
  | "see-other";

/**
 * The server redirected the request somewhere stopstream will not follow: to another origin
 * (where the credentials must not go), to a URL with credentials in it (`user:pw@`), in a loop,
 * more than 5 times, with a 303 See Other (which asks for a `GET` instead of the `POST`), or — in
 * a browser — at all (the browser hides where an opaque redirect points). Other same-origin
 * redirects are followed, up to 5, with the same method, headers and body. Never retried: the
 * same request would be redirected the same way.
 *
 * @example
 * ```ts
 * if (isRedirectError(e)) console.log(`refused a redirect to ${e.targetOrigin}: ${e.reason}`);
 * ```
 */
export class RedirectError extends StopstreamError {
  /** `"RedirectError"`. */
  override name = "RedirectError";
  /**
   * Another origin, a loop, a sixth redirect, a browser's opaque redirect, a URL with
   * credentials, or a 303 on a `POST`.
   */
  declare readonly reason: RedirectReason;
  /** The redirect's status (301, 302, 303, 307, 308), or 0 for a browser's opaque redirect. */
  declare readonly status: number;
  /** The origin the server redirected to; `undefined` when the runtime hides it (`opaque`). */
  declare readonly targetOrigin: string | undefined;

  /** Thrown by the transport when it will not follow a redirect. */
  constructor(reason: RedirectReason, status: number, targetOrigin: string | undefined) {
    super(redirectMessage(reason, targetOrigin));
    this.reason = reason;
    this.status = status;
    this.targetOrigin = targetOrigin;
  }
}
