// Fields set in a constructor are `declare`d: as plain class fields they would cost bundle bytes.

import type { RedirectReason, TimeoutPhase } from "./error_messages.ts";

export type { RedirectReason, TimeoutPhase };
import {
  interruptedMessage,
  partialMessage,
  redirectMessage,
  statusMessage,
  timeoutMessage,
  upstreamMessage,
} from "./error_messages.ts";
import type { ChatResult, TraceEntry } from "./chat_result.ts";
import type { ProtocolName } from "./chat_options.ts";

/** From the global symbol registry, so two copies of the package (npm + JSR) share it. */
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
  /** How many HTTP requests the call had made when it ended (`0`: stopped before the first). */
  attempts?: number;
  /** The requests the call made, in order, as {@linkcode ChatResult.trace} lists them. */
  declare trace?: TraceEntry[];
  /** Brand for cross-copy guards. */
  readonly [BRAND] = true;
}

/**
 * The caller stopped the call (its `AbortSignal` fired, or it stopped iterating). Never retried.
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
 * The server answered with a non-2xx status.
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
 * The connection failed or closed before the stream completed; retried before any content.
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

/**
 * One of the client's own timers fired; `total` ends the call, the other phases are retried.
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
 * The response is not a well-formed stream (wrong content type, bad JSON, oversized event).
 *
 * @example
 * ```ts
 * if (isStreamProtocolError(e)) console.log("proxy returned HTML?", e.message);
 * ```
 */
export class StreamProtocolError extends StopstreamError {
  /** `"StreamProtocolError"`. */
  override name = "StreamProtocolError";
  /** The protocol the stream's events are, when not the call's: the call goes on to a fallback. */
  declare foundProtocol?: ProtocolName;
}

/**
 * The provider reported an error inside the stream; `retryable` says if it is transient.
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
 * The stream failed after content reached the caller, so it was not retried; see `partial`.
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

/**
 * The server redirected where stopstream will not follow (another origin, a loop…); not retried.
 *
 * @example
 * ```ts
 * if (isRedirectError(e)) console.log(`refused a redirect to ${e.targetOrigin}: ${e.reason}`);
 * ```
 */
export class RedirectError extends StopstreamError {
  /** `"RedirectError"`. */
  override name = "RedirectError";
  /** Why the redirect was refused. */
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
