// The answer as one Responses API `response` object (`stream: false`).

import type { ChatResult } from "../core/chat_result.ts";
import { ResponsesEncoder } from "./responses_events.ts";
import { ending, responseShell, responsesUsage } from "./responses_shapes.ts";

type Json = Record<string, unknown>;

/** A `stream: false` answer: the upstream's own items when it spoke the Responses API. */
export function toResponse(result: ChatResult, id: string, model: string): Json {
  const own = result.target?.protocol === "openai-responses" && Array.isArray(result.output);
  const encoder = new ResponsesEncoder(id, model);
  let output: unknown = result.output;
  if (!own) {
    // The same items a stream would have written, gathered from the result; the citations on
    // the text's message, which a stream could not know of before the calls began.
    if (result.reasoning !== "") encoder.encode({ type: "reasoning", text: result.reasoning });
    const text = result.content + (result.refusal ?? "");
    if (text !== "") encoder.encode({ type: "text", text });
    encoder.cite(result.citations);
    for (const call of result.toolCalls) {
      encoder.encode({
        type: "tool-call",
        index: call.index,
        id: call.id,
        name: call.name,
        ...(call.type !== undefined ? { toolType: call.type } : {}),
        ...(call.providerExecuted ? { providerExecuted: true } : {}),
      });
      encoder.encode({
        type: "tool-call-delta",
        index: call.index,
        argumentsDelta: call.arguments,
      });
    }
    output = encoder.items();
  }
  const end = ending(result);
  return {
    ...responseShell(
      result.id || id,
      result.model || model,
      Math.floor(Date.now() / 1000),
      String(end.status),
    ),
    ...end,
    output,
    usage: responsesUsage(result.usage),
  };
}
