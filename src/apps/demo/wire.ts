// The demo model in each protocol: one chat request and reply plan, read from and written to
// Anthropic Messages or Responses by the relay's own translation.

import type { ProtocolName } from "../../core/chat_options.ts";
import type { ChatResult, FinishReason, StreamEvent } from "../../core/chat_result.ts";
import type { AnswerEncoder } from "../../relay/answer_encoder.ts";
import { AnthropicEncoder } from "../../relay/anthropic_events.ts";
import { anthropicToChat, checkAnthropic } from "../../relay/anthropic_request.ts";
import { toAnthropicMessage } from "../../relay/anthropic_shapes.ts";
import { isRecord } from "../../relay/request_body.ts";
import { ResponsesEncoder } from "../../relay/responses_events.ts";
import { toResponse } from "../../relay/responses_whole.ts";
import { checkResponses, responsesToChat } from "../../relay/responses_request.ts";
import type { DemoPlan } from "./reply.ts";

type Json = Record<string, unknown>;

/** How a reply plan's deltas go on the wire, and how its stream ends. */
export interface DemoWire {
  delta(delta: Json): string;
  finish(plan: DemoPlan): string;
  /** An error event in place of the rest of the answer (`error-event-after`). */
  readonly lost: string;
}

/** The protocol a path asks for: `…/chat/completions`, `…/messages`, `…/responses`. */
export function protocolOf(path: string): ProtocolName | undefined {
  if (path.endsWith("/chat/completions")) return "openai-chat";
  if (path.endsWith("/messages")) return "anthropic-messages";
  if (path.endsWith("/responses")) return "openai-responses";
  return undefined;
}

/** @throws {TypeError} with a message meant for a 400 answer. */
export function chatRequestOf(protocol: ProtocolName, json: unknown): unknown {
  if (protocol === "openai-chat" || !isRecord(json)) return json;
  const check = protocol === "anthropic-messages" ? checkAnthropic : checkResponses;
  const failure = check(json);
  if (failure !== undefined) throw new TypeError(failure.message);
  return protocol === "anthropic-messages" ? anthropicToChat(json) : responsesToChat(json);
}

/** The reply as one object of `protocol`'s own shape. */
export function wholeReply(protocol: ProtocolName, plan: DemoPlan, model: string): unknown {
  if (protocol === "openai-chat") {
    const { id, message, finishReason, usage } = plan;
    const choices = [{ index: 0, message, logprobs: null, finish_reason: finishReason }];
    const created = Math.floor(Date.now() / 1000);
    return { id, object: "chat.completion", created, model, choices, usage };
  }
  // The protocol's own id (`msg_…`, `resp_…`), not the chat plan's.
  const result = { ...resultOf(plan, model), id: "" };
  const message = plan.message;
  result.content = typeof message.content === "string" ? message.content : "";
  result.reasoning = typeof message.reasoning_content === "string" ? message.reasoning_content : "";
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  result.toolCalls = calls.map((call, index) => {
    const fn = isRecord(call.function) ? call.function : {};
    return { index, id: String(call.id), name: String(fn.name), arguments: String(fn.arguments) };
  });
  const id = plan.id.slice(-8);
  return protocol === "anthropic-messages"
    ? toAnthropicMessage(result, `msg_${id}`, model)
    : toResponse(result, `resp_${id}`, model);
}

/** The wire of a non-chat protocol: each delta as the client events it stands for, encoded. */
export function encodedWire(protocol: ProtocolName, plan: DemoPlan, model: string): DemoWire {
  const encoder: AnswerEncoder = protocol === "anthropic-messages"
    ? new AnthropicEncoder(`msg_${plan.id.slice(-8)}`, model)
    : new ResponsesEncoder(`resp_${plan.id.slice(-8)}`, model);
  return {
    delta: (delta) => {
      let text = "";
      for (const event of eventsOf(delta)) text += encoder.encode(event);
      return text;
    },
    finish: (plan) => encoder.encode({ type: "finish", result: resultOf(plan, model) }),
    lost: encoder.fail({
      status: 503,
      message: "Network connection lost.",
      type: "server_error",
      code: null,
    }),
  };
}

function eventsOf(delta: Json): StreamEvent[] {
  const events: StreamEvent[] = [];
  if (typeof delta.reasoning_content === "string") {
    events.push({ type: "reasoning", text: delta.reasoning_content });
  }
  if (typeof delta.content === "string") events.push({ type: "text", text: delta.content });
  for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls.filter(isRecord) : []) {
    const index = Number(call.index);
    const fn = isRecord(call.function) ? call.function : {};
    if (typeof call.id === "string") {
      events.push({ type: "tool-call", index, id: call.id, name: String(fn.name) });
    }
    if (typeof fn.arguments === "string" && fn.arguments !== "") {
      events.push({ type: "tool-call-delta", index, argumentsDelta: fn.arguments });
    }
  }
  return events;
}

function resultOf(plan: DemoPlan, model: string): ChatResult {
  const { prompt_tokens: inputTokens, completion_tokens: outputTokens } = plan.usage;
  const finishReason: FinishReason = plan.finishReason;
  return {
    id: plan.id,
    model,
    content: "",
    reasoning: "",
    toolCalls: [],
    finishReason,
    usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, raw: plan.usage },
    attempts: 1,
  };
}
