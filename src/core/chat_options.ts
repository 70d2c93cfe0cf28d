import type { RetryBudget } from "./retry_budget.ts";

/** Wire protocols stopstream can speak. */
export type ProtocolName = "openai-chat" | "anthropic-messages" | "openai-responses";

/**
 * Retry backoff: full jitter, drawn from `[initialDelayMs, min(maxDelayMs, initialDelayMs * 2^n)]`
 * before retry `n`, unless the server asked for longer.
 */
export interface RetryOptions {
  /** Default 500. */
  initialDelayMs?: number | undefined;
  /** Default 8000. */
  maxDelayMs?: number | undefined;
  /** Longest `Retry-After` honoured (default 60 000); a longer one fails the call at once. */
  maxRetryAfterMs?: number | undefined;
}

/**
 * Time limits in ms. `headersMs`, `firstEventMs` and `idleMs` are retried; `totalMs` bounds the
 * whole call, backoff included, and is not.
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
 * What to do when a stream fails after content reached the caller. Default `"throw"`
 * (`PartialStreamError`); `"return"` resolves with `result.partial`; `"continue"` asks the
 * provider for the rest; `"retry"` starts over and allows only `result`, not iteration.
 */
export type PartialPolicy = "throw" | "return" | "continue" | "retry";

/** Options of {@linkcode streamChat}. */
export interface StreamChatOptions {
  /** E.g. `https://api.openai.com/v1`; the protocol appends its path. A trailing slash is fine. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …` (`x-api-key` for Anthropic). */
  apiKey?: string | undefined;
  /** Extra request headers; they win over the defaults, `apiKey` wins over `Authorization`. */
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
  /** A budget shared with other calls that every retry draws from; empty → next fallback. */
  retryBudget?: RetryBudget | undefined;
}
