import { usage } from "./usage.ts";
import type { Usage } from "../core/chat_result.ts";

/** Usage as Anthropic reports it (`message_start.message.usage`, `message_delta.usage`). */
export interface AnthropicUsage {
  /** Uncached input tokens. */
  input_tokens?: number | null;
  /** Generated tokens (cumulative in `message_delta`). */
  output_tokens?: number | null;
  /** Input tokens written to the prompt cache. */
  cache_creation_input_tokens?: number | null;
  /** Input tokens read from the prompt cache. */
  cache_read_input_tokens?: number | null;
}

/** A content block, as opened by `content_block_start` or found in a whole message. */
export type AnthropicContentBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "server_tool_use"; id: string; name: string; input: unknown };

/** The `delta` of a `content_block_delta` event. */
export type AnthropicDelta =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; thinking: string }
  | { type: "signature_delta"; signature: string }
  | { type: "input_json_delta"; partial_json: string };

/** A Message object (`message_start.message`, or a whole non-streaming answer). */
export interface AnthropicMessage {
  /** The message id (`msg_…`). */
  id: string;
  /** Always `"message"`. */
  type?: "message";
  /** Always `"assistant"`. */
  role?: "assistant";
  /** The model that answers. */
  model: string;
  /** The content blocks (empty at `message_start`). */
  content: AnthropicContentBlock[];
  /** `end_turn`, `max_tokens`, `tool_use`, …; `null` until `message_delta`. */
  stop_reason: string | null;
  /** The stop sequence that ended the answer, if one did. */
  stop_sequence?: string | null;
  /** Token usage so far. */
  usage?: AnthropicUsage;
}

/** One Anthropic stream event (the JSON in `data:`), discriminated on `type`. */
export type AnthropicStreamEvent =
  | { type: "message_start"; message: AnthropicMessage }
  | { type: "content_block_start"; index: number; content_block: AnthropicContentBlock }
  | { type: "content_block_delta"; index: number; delta: AnthropicDelta }
  | { type: "content_block_stop"; index: number }
  | {
    type: "message_delta";
    delta: { stop_reason?: string | null; stop_sequence?: string | null };
    usage?: AnthropicUsage;
  }
  | { type: "message_stop" }
  | { type: "ping" }
  | { type: "error"; error: { type: string; message: string } };

/** Cache-read and cache-writing input count in `inputTokens`, as in every other protocol. */
export function anthropicUsage(raw: AnthropicUsage): Usage {
  const cacheRead = raw.cache_read_input_tokens;
  const inputTokens = (raw.input_tokens ?? 0) + (raw.cache_creation_input_tokens ?? 0) +
    (cacheRead ?? 0);
  return usage(inputTokens, raw.output_tokens ?? 0, undefined, cacheRead, undefined, raw);
}
