import type { ChatResult } from "../core/chat_result.ts";
import { callId, toAnnotations, toOpenAIUsage } from "./openai_shapes.ts";

/** `logprobs`: `null`, or (an `openai-chat` upstream asked for them) the answer's. */
export function toChatCompletion(
  result: ChatResult,
  id: string,
  model: string,
  logprobs: unknown,
): Record<string, unknown> {
  // The provider's own calls ran already: the caller gets only its own.
  const calls = result.toolCalls.filter((call) => call.providerExecuted !== true);
  const message: Record<string, unknown> = {
    role: "assistant",
    content: result.content === "" && calls.length > 0 ? null : result.content,
    refusal: result.refusal ?? null,
  };
  if (result.reasoning !== "") message.reasoning_content = result.reasoning;
  // OpenRouter's reasoning blocks, merged, as the provider's own message has them.
  const details = (result.output as { reasoning_details?: unknown } | undefined)
    ?.reasoning_details;
  if (details !== undefined) message.reasoning_details = details;
  const annotations = toAnnotations(result.citations);
  if (annotations !== undefined) message.annotations = annotations;
  if (calls.length > 0) {
    message.tool_calls = calls.map((call, index) => {
      const entry: Record<string, unknown> = {
        id: call.id || callId(index),
        type: "function",
        function: { name: call.name || (call.type ?? ""), arguments: call.arguments },
      };
      if (call.extra !== undefined) entry.extra_content = call.extra;
      return entry;
    });
  }
  const completion: Record<string, unknown> = {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs, finish_reason: result.finishReason }],
  };
  if (result.usage !== undefined) completion.usage = toOpenAIUsage(result.usage);
  return completion;
}
