import type { ProtocolName } from "./chat_options.ts";

/** Token usage normalised across protocols; `raw` keeps the provider's own object. */
export interface Usage {
  /** Every prompt token, cached ones included. */
  inputTokens: number;
  /** Tokens generated, reasoning included. */
  outputTokens: number;
  /** `inputTokens + outputTokens`, or the provider's own total. */
  totalTokens: number;
  /** The part of `outputTokens` spent on reasoning, when the provider reports it. */
  reasoningTokens?: number;
  /** The part of `inputTokens` read from the provider's prompt cache. */
  cachedInputTokens?: number;
  /** The provider's own usage object, unchanged. */
  raw: unknown;
}

/** One tool call as assembled from the stream. */
export interface ToolCall {
  /** Position among the answer's tool calls, from 0. */
  index: number;
  /** The provider's id for the call (`call_…`, `toolu_…`), to send back with the result. */
  id: string;
  /** The tool's name; `""` for kinds that have none (`apply_patch`, `shell`, `computer`…). */
  name: string;
  /** The arguments as JSON text, exactly as streamed (invalid if cut short); parse it yourself. */
  arguments: string;
  /** The call's kind; absent means `"function"` (Responses sets `"custom"`, `"shell"`…). */
  type?: string;
  /** Provider-specific extra data attached to the call (e.g. OpenAI-compatible `extra_content`). */
  extra?: unknown;
  /** `true` when the provider ran the call itself (a hosted tool): the caller must not run it. */
  providerExecuted?: boolean;
}

/** A source the answer cites, normalised across protocols. */
export interface Citation {
  /** The cited page, when the source has a URL. */
  url?: string;
  /** The source's title (a page title, a document's or file's name). */
  title?: string;
  /** The passage of the source the answer relies on, when the provider quotes it. */
  citedText?: string;
  /** Where the cited span of `content` starts (UTF-16 offset). */
  start?: number;
  /** Where it ends. */
  end?: number;
  /** The provider's own citation object, unchanged. */
  source?: unknown;
}

/** An assistant message in the provider's own shape (Anthropic or OpenAI-compatible). */
export interface AssistantMessage {
  /** Always `"assistant"`. */
  role: "assistant";
  /** Anthropic's content blocks, or OpenAI's text (`null` beside tool calls) or content parts. */
  content: unknown;
  /** Everything else the provider needs back (`tool_calls`, `reasoning_content`…). */
  [field: string]: unknown;
}

/** The assistant turn in the provider's own shape, to send back unchanged on the next turn. */
export type ChatOutput = AssistantMessage | Array<Record<string, unknown>>;

/** Which upstream answered, when a fallback chain is configured. Never contains a key. */
export interface ResultTarget {
  /** Position in the chain: 0 is the primary, 1 the first fallback. */
  index: number;
  /** The target's base URL. */
  baseURL: string;
  /** The protocol spoken to it. */
  protocol: ProtocolName;
  /** The `model` of the request body sent to it. */
  model?: string;
}

/** A reasoning block (Anthropic `thinking`/`redacted_thinking`) to send back unchanged. */
export type ReasoningDetail =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

/**
 * Why an answer ended; `length` includes unfinished tool arguments, `tool_calls` means a call is
 * the caller's to run, `error` that the stream broke off.
 */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error";

/** The assembled answer of one `streamChat` call. */
export interface ChatResult {
  /** The provider's id for the answer. */
  id: string;
  /** The model that answered, as the provider names it. */
  model: string;
  /** The answer's text. */
  content: string;
  /** The model's reasoning text (`""` when it sent none). */
  reasoning: string;
  /** Signed and redacted reasoning blocks (Anthropic), to send back with the assistant turn. */
  reasoningDetails?: ReasoningDetail[];
  /** A refusal the provider sent apart from the text (OpenAI `refusal`). */
  refusal?: string;
  /** The tool calls, in order, with their complete arguments; see `providerExecuted`. */
  toolCalls: ToolCall[];
  /** The assistant turn in the provider's own shape, lossless: what to send back next turn. */
  output?: ChatOutput;
  /** Sources the answer cites; absent when there are none. */
  citations?: Citation[];
  /** Normalised; an unknown provider value counts as `stop`, a partial result is `error`. */
  finishReason: FinishReason;
  /** The provider's own finish/stop reason, before normalisation. */
  providerFinishReason?: string;
  /** Token usage, when the provider reported it. */
  usage?: Usage;
  /** How many HTTP requests this call made, retries included. */
  attempts: number;
  /** The successful response's `x-ratelimit-*` headers. */
  rateLimit?: Record<string, string>;
  /** Which target answered (`index` 0: the primary, `n`: `fallbacks[n - 1]`); never the key. */
  target?: ResultTarget;
  /** `true` when `onPartial: "return"` resolved a stream that failed after content. */
  partial?: boolean;
  /** The failure behind a partial result. */
  error?: Error;
  /** How many times a cut-off answer was continued (`onPartial: "continue"`). */
  continuations?: number;
  /** `false` when the provider refused streaming and one non-streaming request answered. */
  streamed?: boolean;
  /** How many times the answer was resumed after its connection dropped or stalled. */
  resumes?: number;
  /** One entry per HTTP request the call made, in order (also on every error that ends it). */
  trace?: TraceEntry[];
}

/**
 * One upstream request of a call, as `result.trace` and an ending error's `trace` list them:
 * the record to feed OpenTelemetry (one span per entry) or any logger. Never holds a key.
 *
 * @example
 * ```ts
 * for (const t of result.trace ?? []) {
 *   console.log(t.target.baseURL, t.target.model, t.end - t.start, t.status ?? t.error);
 * }
 * ```
 */
export interface TraceEntry {
  /** Where the request went: base URL, protocol, model and place in the fallback chain. */
  target: ResultTarget;
  /** When the request was sent, in epoch ms (`Date.now()`). */
  start: number;
  /** When it ended (its answer read, or its failure), in epoch ms; `0` while in flight. */
  end: number;
  /** The HTTP status of its response; absent when none came (network error, timeout, stop). */
  status?: number;
  /** The `name` of the error that ended it (`APIStatusError`, `TimeoutError`…); absent on success. */
  error?: string;
  /** How long the call waited before sending it (backoff or `Retry-After`), in ms. */
  waitMs: number;
}

/** Events yielded while iterating a {@linkcode ChatStream}, discriminated on `type`. */
export type StreamEvent =
  | { type: "open"; attempt: number; status: number; headers: Record<string, string> }
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | {
    type: "tool-call";
    index: number;
    id: string;
    name: string;
    /** The call's {@linkcode ToolCall.type}, when it is not a function call. */
    toolType?: string;
    /** `true` when the provider ran the call itself ({@linkcode ToolCall.providerExecuted}). */
    providerExecuted?: boolean;
  }
  | { type: "tool-call-delta"; index: number; argumentsDelta: string }
  | { type: "retry"; attempt: number; delayMs: number; error: Error }
  | { type: "resume"; lastEventId: string; attempt: number; delayMs: number; error: Error }
  | { type: "fallback"; index: number; error: Error }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; result: ChatResult };
