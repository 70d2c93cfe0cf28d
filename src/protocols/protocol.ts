// The seam between the retry loop and a wire protocol (one file here, one line in registry.ts).

import type { Accumulator } from "../core/accumulator.ts";
import type { ProtocolName } from "../core/chat_options.ts";

/** One target's request inputs, fallback entries already merged in. */
export interface RequestTarget {
  baseURL: string;
  apiKey: string | undefined;
  headers: Headers;
  body: Record<string, unknown>;
}

/** Built once per target and reused by every attempt. */
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

export type EventOutcome = 0 | 1 | 2;

/** One instance per attempt: per-attempt state (tool-call slots, block indexes) is in fields. */
export interface StreamDecoder {
  /** Throws `UpstreamStreamError` for a provider's error, `StreamProtocolError` for bad data. */
  onEvent(event: string | undefined, data: string): EventOutcome;
  /** Whether a body that ends now (without the terminal event) is nevertheless complete. */
  endedCleanly(): boolean;
  /** The last event's position as the provider numbers it (Responses): resumes go on after it. */
  readonly cursor?: unknown;
}

/** A wire protocol: how it asks, how it reads what comes back. */
export interface Protocol {
  readonly name: ProtocolName;
  buildRequest(target: RequestTarget): ProtocolRequest;
  createDecoder(acc: Accumulator): StreamDecoder;
  /** An error object in a JSON body (status 200) or in the stream; `undefined` if not one. */
  toUpstreamError(payload: unknown): Error | undefined;
  /** A whole non-streaming answer; without it there is no non-streaming fallback. */
  decodeMessage?(message: unknown, acc: Accumulator): void;
  /** Absent when the protocol cannot ask for the rest of a cut-off text answer. */
  continuationBody?(body: Record<string, unknown>, partialText: string): Record<string, unknown>;
}
