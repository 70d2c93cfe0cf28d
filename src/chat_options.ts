/**
 * The options of a call: {@linkcode StreamChatOptions}, and the retry, timeout and partial-answer
 * policies it takes.
 *
 * @module
 */

import type { RetryBudget } from "./retry_budget.ts";

/** Wire protocols stopstream can speak. */
export type ProtocolName = "openai-chat" | "anthropic-messages" | "openai-responses";

/**
 * Retry delays. The delay before retry `n` is drawn uniformly ("full jitter") from
 * `[initialDelayMs, min(maxDelayMs, initialDelayMs * 2^n)]`, unless the server asked for more.
 *
 * @example
 * ```ts
 * const retry: RetryOptions = { initialDelayMs: 250, maxDelayMs: 4000 };
 * ```
 */
export interface RetryOptions {
  /** Default 500. */
  initialDelayMs?: number | undefined;
  /** Default 8000. */
  maxDelayMs?: number | undefined;
  /**
   * Longest `Retry-After` the client will honour (default 60 000). A server asking for a longer
   * wait fails the call at once with its error instead of parking it for minutes.
   */
  maxRetryAfterMs?: number | undefined;
}

/**
 * Time limits, in milliseconds. Retryable: `headersMs`, `firstEventMs`, `idleMs`. `totalMs`
 * bounds the whole call, retries and backoff included, and is never retried.
 *
 * @example
 * ```ts
 * const timeouts: Timeouts = { headersMs: 10_000, idleMs: 30_000, totalMs: 120_000 };
 * ```
 */
export interface Timeouts {
  /** Request start to response headers. Default 60 000. */
  headersMs?: number | undefined;
  /** Response headers to the first data event (covers a long prefill). Default 600 000. */
  firstEventMs?: number | undefined;
  /** Between data events; keep-alive comments are not progress. Default 180 000. */
  idleMs?: number | undefined;
  /** The whole call. Default: none. */
  totalMs?: number | undefined;
}

/**
 * What to do when a stream fails after content reached the caller.
 * `"throw"` (default) rejects with `PartialStreamError`; `"return"` resolves with
 * `result.partial = true`; `"continue"` asks the provider for the rest; `"retry"` starts over,
 * retrying (and falling back) as if nothing had arrived — for callers who show nothing until
 * the end: it is used with `result` alone (iterating such a stream is a `TypeError`, since the
 * abandoned attempt's output would be seen twice).
 */
export type PartialPolicy = "throw" | "return" | "continue" | "retry";

/**
 * Options of {@linkcode streamChat}.
 *
 * @example
 * ```ts
 * const options: StreamChatOptions = {
 *   baseURL: "https://api.openai.com/v1",
 *   apiKey: "sk-...",
 *   body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] },
 * };
 * ```
 */
export interface StreamChatOptions {
  /** E.g. `https://api.openai.com/v1`; the protocol appends its path. A trailing slash is fine. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …` (`x-api-key` for Anthropic). */
  apiKey?: string | undefined;
  /**
   * Extra request headers; they win over the defaults, but `apiKey` wins over an `Authorization`
   * header (a caller's `x-api-key` is kept for Anthropic: a gateway's key).
   */
  headers?: Record<string, string> | Headers | undefined;
  /** The provider request object, sent unchanged except for the streaming flags. */
  body: Record<string, unknown>;
  /** Wire protocol. Default `"openai-chat"`. */
  protocol?: ProtocolName | undefined;
  /** Stops the call in any phase: no further request, the connection closed, `InterruptedError`. */
  signal?: AbortSignal | undefined;
  /** Retries after the first attempt. Default 2 (at most 3 attempts). */
  maxRetries?: number | undefined;
  /** Backoff between attempts. */
  retry?: RetryOptions | undefined;
  /** Time limits of each phase and of the whole call. */
  timeouts?: Timeouts | undefined;
  /** Default `globalThis.fetch`, looked up at call time. */
  fetch?: typeof fetch | undefined;
  /** Largest single SSE event accepted, in bytes (default 16 MiB). */
  maxEventBytes?: number | undefined;
  /** Next targets to try when this one has used up its retries. */
  fallbacks?: Array<Partial<StreamChatOptions>> | undefined;
  /** Default `"throw"`. */
  onPartial?: PartialPolicy | undefined;
  /**
   * A budget shared with other calls ({@linkcode createRetryBudget}) that every retry, resume
   * and continuation draws from; when it is empty the call moves on to its next fallback, or
   * fails with the last error. Default: none (only `maxRetries` limits retries).
   */
  retryBudget?: RetryBudget | undefined;
}
