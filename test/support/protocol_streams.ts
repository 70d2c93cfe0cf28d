/**
 * Recorded-shape upstream streams for the relay's translation tests: what Anthropic Messages and
 * OpenAI Responses send for a turn with reasoning, text and one tool call.
 *
 * @module
 */

import { sse } from "./sse.ts";

/** Anthropic Messages: thinking, text (with a ping between deltas), one tool_use block. */
export const ANTHROPIC_STREAM: string[] = [
  sse({
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [],
      usage: { input_tokens: 11, output_tokens: 1 },
    },
  }, "message_start"),
  sse(
    { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
    "content_block_start",
  ),
  sse({
    type: "content_block_delta",
    index: 0,
    delta: { type: "thinking_delta", thinking: "Let me see." },
  }, "content_block_delta"),
  sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
  sse(
    { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
    "content_block_start",
  ),
  sse(
    { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Hello" } },
    "content_block_delta",
  ),
  sse({ type: "ping" }, "ping"),
  sse({
    type: "content_block_delta",
    index: 1,
    delta: { type: "text_delta", text: " from Claude" },
  }, "content_block_delta"),
  sse({ type: "content_block_stop", index: 1 }, "content_block_stop"),
  sse({
    type: "content_block_start",
    index: 2,
    content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} },
  }, "content_block_start"),
  sse({
    type: "content_block_delta",
    index: 2,
    delta: { type: "input_json_delta", partial_json: '{"city":' },
  }, "content_block_delta"),
  sse({
    type: "content_block_delta",
    index: 2,
    delta: { type: "input_json_delta", partial_json: '"Oslo"}' },
  }, "content_block_delta"),
  sse({ type: "content_block_stop", index: 2 }, "content_block_stop"),
  sse(
    { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 21 } },
    "message_delta",
  ),
  sse({ type: "message_stop" }, "message_stop"),
];

/** OpenAI Responses: reasoning summary, output text, one function call. */
export const RESPONSES_STREAM: string[] = [
  sse({
    type: "response.created",
    response: { id: "resp_1", model: "gpt-r", status: "in_progress", output: [] },
  }, "response.created"),
  sse({
    type: "response.output_item.added",
    output_index: 0,
    item: { type: "reasoning", id: "rs_1", summary: [] },
  }, "response.output_item.added"),
  sse({
    type: "response.reasoning_summary_text.delta",
    item_id: "rs_1",
    output_index: 0,
    summary_index: 0,
    delta: "Thinking.",
  }, "response.reasoning_summary_text.delta"),
  sse({
    type: "response.output_item.added",
    output_index: 1,
    item: { type: "message", id: "msg_1", role: "assistant", content: [] },
  }, "response.output_item.added"),
  sse({
    type: "response.output_text.delta",
    item_id: "msg_1",
    output_index: 1,
    content_index: 0,
    delta: "Hello",
  }, "response.output_text.delta"),
  sse({
    type: "response.output_text.delta",
    item_id: "msg_1",
    output_index: 1,
    content_index: 0,
    delta: " from Responses",
  }, "response.output_text.delta"),
  sse({
    type: "response.output_item.added",
    output_index: 2,
    item: {
      type: "function_call",
      id: "fc_1",
      call_id: "call_1",
      name: "get_weather",
      arguments: "",
    },
  }, "response.output_item.added"),
  sse({
    type: "response.function_call_arguments.delta",
    item_id: "fc_1",
    output_index: 2,
    delta: '{"city":"Oslo"}',
  }, "response.function_call_arguments.delta"),
  sse({
    type: "response.completed",
    response: {
      id: "resp_1",
      model: "gpt-r",
      status: "completed",
      output: [{
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "get_weather",
        arguments: '{"city":"Oslo"}',
      }],
      usage: { input_tokens: 9, output_tokens: 14, total_tokens: 23 },
    },
  }, "response.completed"),
];
