/**
 * The seam between the retry loop and a wire protocol. A protocol is one file in this folder
 * plus one line in `registry.ts`; the retry loop and the transport never look inside it.
 *
 * @module
 */

import type { Accumulator } from "../accumulator.ts";
import type { CallControl } from "../call_control.ts";
import type { ProtocolName } from "../chat_options.ts";

/** What one target needs to build its request (fallback entries already merged in). */
export interface RequestTarget {
  baseURL: string;
  apiKey: string | undefined;
  headers: Headers;
  body: Record<string, unknown>;
}

/** One HTTP request, built once per target and reused by every attempt. */
export interface ProtocolRequest {
  url: string;
  headers: Headers;
  body: string;
}

/** `onEvent` result: a data event that is progress (resets the idle timer). */
export const EVENT_PROGRESS = 0;
/** `onEvent` result: the terminal event; reading stops and the body is released. */
export const EVENT_TERMINAL = 1;
/** `onEvent` result: an event that is not progress (a keep-alive `ping` sent as data). */
export const EVENT_KEEPALIVE = 2;

/** One of {@linkcode EVENT_PROGRESS}, {@linkcode EVENT_TERMINAL}, {@linkcode EVENT_KEEPALIVE}. */
export type EventOutcome = 0 | 1 | 2;

/**
 * Turns one attempt's SSE events into accumulator calls. One instance per attempt, so
 * per-attempt state (tool-call slots, block indexes) lives in fields, not closures.
 */
export interface StreamDecoder {
  /**
   * Handles one SSE event (`event` is the `event:` field, `data` the joined data lines).
   * Throws `UpstreamStreamError` for an error the provider reports in the stream and
   * `StreamProtocolError` for data that does not parse.
   */
  onEvent(event: string | undefined, data: string): EventOutcome;
  /** Whether a body that ends now (without the terminal event) is nevertheless complete. */
  endedCleanly(): boolean;
  /**
   * Where the last decoded event stands in the provider's own numbering (the Responses API's
   * `sequence_number`), as sent: a stream the provider keeps running resumes after it.
   */
  readonly cursor?: unknown;
  /**
   * Sees each chunk of the body's text before its events are parsed (the relay's fast path,
   * src/relay/forward.ts, checks what it forwards against it). Optional: no decoder of the
   * client has one.
   */
  onText?(text: string): void;
}

/**
 * How a protocol reads what comes back: the stream, an error object, a whole answer. Loaded
 * with its protocol (`openai-chat`), or on first use ({@linkcode LazyProtocol}).
 */
export interface ProtocolDecoding {
  /** A fresh decoder for one attempt. */
  createDecoder(acc: Accumulator): StreamDecoder;
  /**
   * Maps an error object sent as a JSON body (with status 200) or inside the stream to an
   * `UpstreamStreamError` (with `retryable` set), or returns `undefined` if it is not one.
   */
  toUpstreamError(payload: unknown): Error | undefined;
  /**
   * Delivers a whole non-streaming answer (the JSON body of a response to the same request
   * without `stream: true`) to `acc`. Used when a provider refuses to stream a model; a
   * protocol without it simply cannot fall back to a non-streaming request.
   */
  decodeMessage?(message: unknown, acc: Accumulator): void;
}

/**
 * How a protocol asks: the streaming request, and the one that continues a cut-off answer.
 * Small, and in every bundle: `streamChat` builds the request before it returns.
 */
export interface ProtocolRequests {
  readonly name: ProtocolName;
  /** The streaming request for `target`. */
  buildRequest(target: RequestTarget): ProtocolRequest;
  /**
   * The request body that asks for the rest of a cut-off text answer, or `undefined` when
   * this protocol cannot continue one.
   */
  continuationBody?(body: Record<string, unknown>, partialText: string): Record<string, unknown>;
}

/**
 * A wire protocol: request shape, stream decoding, error classification.
 *
 * @example
 * ```ts
 * import { PROTOCOLS } from "./registry.ts";
 * const protocol = PROTOCOLS["openai-chat"];
 * ```
 */
export interface Protocol extends ProtocolRequests, ProtocolDecoding {}

/**
 * A protocol whose decoding is loaded on first use (`src/lazy.ts`): a bundler that splits code
 * puts it in a chunk of its own, which an app that never calls this protocol never downloads.
 *
 * @example
 * ```ts
 * const protocol = await anthropicMessages.load(control); // the whole Protocol
 * ```
 */
export interface LazyProtocol extends ProtocolRequests {
  /**
   * The whole protocol: at once once loaded; a stop of `control` ends the wait, and so does
   * `limitMs` (a `ConnectionError`).
   */
  load(control: CallControl, limitMs?: number): Protocol | Promise<Protocol>;
}

/**
 * `protocol` with its decoding, loading it if need be (once per process or page).
 *
 * @example
 * ```ts
 * const decoding = await loadProtocol(target.protocol, control, 60_000);
 * ```
 */
export function loadProtocol(
  protocol: Protocol | LazyProtocol,
  control: CallControl,
  limitMs?: number,
): Protocol | Promise<Protocol> {
  return "createDecoder" in protocol ? protocol : protocol.load(control, limitMs);
}
