/**
 * What a call produces: the events a {@linkcode ChatStream} yields while it streams, and the
 * {@linkcode ChatResult} they add up to (text, reasoning, tool calls, citations, usage, and the
 * assistant turn in the provider's own shape).
 *
 * @module
 */

import type { ProtocolName } from "./chat_options.ts";

/**
 * Token usage normalised across protocols. `raw` keeps the provider's own object.
 *
 * @example
 * ```ts
 * const usage: Usage = { inputTokens: 12, outputTokens: 30, totalTokens: 42, raw: {} };
 * ```
 */
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

/**
 * One tool call as assembled from the stream. `arguments` is the concatenated JSON text
 * exactly as the model produced it (it may be invalid JSON when the output was cut short).
 *
 * @example
 * ```ts
 * const call: ToolCall = { index: 0, id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' };
 * ```
 */
export interface ToolCall {
  /** Position among the answer's tool calls, from 0. */
  index: number;
  /** The provider's id for the call (`call_…`, `toolu_…`), to send back with the result. */
  id: string;
  /** The tool's name; `""` for kinds that have none (`apply_patch`, `shell`, `computer`…). */
  name: string;
  /**
   * The arguments as JSON text, exactly as streamed (parse it yourself); for a `custom` tool its
   * free-form `input` text, and for the other Responses action kinds the JSON of their
   * `action` / `operation`.
   */
  arguments: string;
  /**
   * What kind of call this is; absent means `"function"`. OpenAI Responses action items set
   * it to their kind: `"custom"`, `"apply_patch"`, `"shell"`, `"local_shell"`, `"computer"`,
   * `"mcp_approval_request"`.
   */
  type?: string;
  /** Provider-specific extra data attached to the call (e.g. OpenAI-compatible `extra_content`). */
  extra?: unknown;
}

/**
 * A source the answer cites, normalised across protocols. `start`/`end` are the cited span of
 * `ChatResult.content` (UTF-16 offsets) when the provider ties the citation to a span;
 * `source` is the provider's own citation object, unchanged.
 *
 * @example
 * ```ts
 * const citation: Citation = { url: "https://example.com/", title: "Example", start: 0, end: 12 };
 * ```
 */
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

/**
 * An assistant message in the provider's own shape: Anthropic's `{ role: "assistant",
 * content: [...blocks] }` or OpenAI-compatible `{ role: "assistant", content, tool_calls?, … }`.
 *
 * @example
 * ```ts
 * const message: AssistantMessage = { role: "assistant", content: [{ type: "text", text: "Hi" }] };
 * ```
 */
export interface AssistantMessage {
  /** Always `"assistant"`. */
  role: "assistant";
  /** Anthropic's content blocks, or OpenAI's text (`null` beside tool calls) or content parts. */
  content: unknown;
  /** Everything else the provider needs back (`tool_calls`, `reasoning_content`…). */
  [field: string]: unknown;
}

/**
 * The assistant turn in the provider's own shape, to send back unchanged on the next turn:
 * an {@linkcode AssistantMessage} for `anthropic-messages` and `openai-chat`, the array of
 * output items for `openai-responses`.
 *
 * @example
 * ```ts
 * function append(history: unknown[], output: ChatOutput): void {
 *   if (Array.isArray(output)) history.push(...output);
 *   else history.push(output);
 * }
 * ```
 */
export type ChatOutput = AssistantMessage | Array<Record<string, unknown>>;

/**
 * Which upstream answered, when a fallback chain is configured. Never contains a key.
 *
 * @example
 * ```ts
 * const target: ResultTarget = { index: 0, baseURL: "https://api.openai.com/v1", protocol: "openai-chat" };
 * ```
 */
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

/**
 * One block of a model's reasoning that must go back to the provider unchanged: Anthropic's
 * signed `thinking` blocks and opaque `redacted_thinking` blocks, in the order they arrived.
 * Each entry has the shape of the Anthropic content block it came from, so it can be put back
 * into the assistant message as is.
 *
 * @example
 * ```ts
 * const details: ReasoningDetail[] = [
 *   { type: "thinking", thinking: "27 * 453 = 12231.", signature: "EqQBCgIYAhIM…" },
 *   { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix…" },
 * ];
 * ```
 */
export type ReasoningDetail =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string };

/**
 * Why an answer ended, normalised across protocols: `stop` (the model finished), `length` (the
 * token limit cut it, or a tool call's arguments were left unfinished), `tool_calls` (the model
 * wants tools run), `content_filter` (the provider withheld the rest), `error` (the stream broke
 * off: a partial result, or a provider that said so itself).
 *
 * @example
 * ```ts
 * const reason: FinishReason = result.partial ? "error" : result.finishReason;
 * ```
 */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error";

/**
 * The assembled answer of one `streamChat` call.
 *
 * @example
 * ```ts
 * import { streamChat } from "stopstream";
 * const result: ChatResult = await streamChat({ baseURL: "http://127.0.0.1:8787/demo/v1", body: { model: "demo", messages: [] } }).result;
 * console.log(result.content, result.finishReason, result.attempts);
 * ```
 */
export interface ChatResult {
  /** The provider's id for the answer. */
  id: string;
  /** The model that answered, as the provider names it. */
  model: string;
  /** The answer's text. */
  content: string;
  /** The model's reasoning text (`""` when it sent none). */
  reasoning: string;
  /**
   * Signed and redacted reasoning blocks (Anthropic extended thinking), to send back with the
   * assistant turn; absent when the provider sent none.
   */
  reasoningDetails?: ReasoningDetail[];
  /** A refusal the provider sent apart from the text (OpenAI `refusal`). */
  refusal?: string;
  /** The tool calls, in order, with their complete arguments. */
  toolCalls: ToolCall[];
  /**
   * The assistant turn in the provider's own shape, lossless (every block or item, unknown
   * kinds included, in order): what `content`, `reasoning`, `toolCalls` and
   * `reasoningDetails` are derived from, and what to send back on the next turn. Always set
   * by stopstream.
   */
  output?: ChatOutput;
  /** Sources the answer cites; absent when there are none. */
  citations?: Citation[];
  /**
   * Normalised (see {@linkcode FinishReason}); a provider value outside the set counts as
   * `stop`. Always `error` on a partial result.
   */
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
  /**
   * `true` when `onPartial: "return"` resolved a stream that failed after content (its
   * `finishReason` is then `error`).
   */
  partial?: boolean;
  /** The failure behind a partial result. */
  error?: Error;
  /** How many times a cut-off answer was continued (`onPartial: "continue"`). */
  continuations?: number;
  /** `false` when the provider refused streaming and the answer came from one non-streaming request. */
  streamed?: boolean;
  /**
   * How many times the answer was resumed after its connection dropped or stalled (one per
   * `resume` event): a stream the server keeps running (the stopstream relay's resumable
   * streams, OpenAI Responses background mode) continues where it broke off.
   */
  resumes?: number;
}

/**
 * Events yielded while iterating a {@linkcode ChatStream}, discriminated on `type`.
 *
 * @example
 * ```ts
 * function show(event: StreamEvent): void {
 *   if (event.type === "text") console.log(event.text);
 * }
 * ```
 */
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
  }
  | { type: "tool-call-delta"; index: number; argumentsDelta: string }
  | { type: "retry"; attempt: number; delayMs: number; error: Error }
  | { type: "resume"; lastEventId: string; attempt: number; delayMs: number; error: Error }
  | { type: "fallback"; index: number; error: Error }
  | { type: "usage"; usage: Usage }
  | { type: "finish"; result: ChatResult };
