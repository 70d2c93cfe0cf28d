/**
 * The Anthropic Messages wire format, as far as stopstream reads it: the JSON of each stream
 * event and of a whole message. Exported for callers who want the raw events.
 *
 * @module
 */

/** Usage as Anthropic reports it (`message_start.message.usage`, `message_delta.usage`). */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
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
  id: string;
  type?: "message";
  role?: "assistant";
  model: string;
  content: AnthropicContentBlock[];
  stop_reason: string | null;
  stop_sequence?: string | null;
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
