/**
 * Reading and continuing a conversation with the official SDKs, for the tests that drive the
 * relay's `/v1/messages` (Anthropic) and `/v1/responses` (openai).
 *
 * @module
 */

import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";

/**
 * The text of `message`'s first block, or `""` when it is not a text block.
 *
 * @example
 * ```ts
 * expect(firstText(await client.messages.create(params))).toMatch(/^You said/);
 * ```
 */
export function firstText(message: Anthropic.Message): string {
  const [block] = message.content;
  return block?.type === "text" ? block.text : "";
}

/**
 * `params` continued: `first` (the assistant's turn), then the user's `result` of the tool call
 * `toolUseId`, with `tools` still offered.
 *
 * @example
 * ```ts
 * await client.messages.create(withToolResult(params, tools, first, call.id, "sunny"));
 * ```
 */
export function withToolResult(
  params: { model: string; max_tokens: number; messages: Anthropic.MessageParam[] },
  tools: Anthropic.Tool[],
  first: Anthropic.Message,
  toolUseId: string,
  result: string,
): Anthropic.MessageCreateParamsNonStreaming {
  return {
    ...params,
    tools,
    messages: [
      ...params.messages,
      { role: "assistant", content: first.content },
      { role: "user", content: [{ type: "tool_result", tool_use_id: toolUseId, content: result }] },
    ],
  };
}

/**
 * A Responses `input` that answers the function call `call` with `output`, after the user's "Hi".
 *
 * @example
 * ```ts
 * await client.responses.create({ model, tools, input: withFunctionOutput(call, "sunny") });
 * ```
 */
export function withFunctionOutput(
  call: OpenAI.Responses.ResponseFunctionToolCall,
  output: string,
): OpenAI.Responses.ResponseInput {
  return [
    { role: "user", content: "Hi" },
    { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments },
    { type: "function_call_output", call_id: call.call_id, output },
  ];
}
