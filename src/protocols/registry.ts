import type { ProtocolName } from "../core/chat_options.ts";
import { anthropicMessages } from "./anthropic_messages.ts";
import { openAIChat } from "./openai_chat.ts";
import { openAIResponses } from "./openai_responses.ts";
import type { Protocol } from "./protocol.ts";

export const PROTOCOLS: Record<ProtocolName, Protocol> = {
  "openai-chat": openAIChat,
  "anthropic-messages": anthropicMessages,
  "openai-responses": openAIResponses,
};

const ANTHROPIC_TYPE = /^(?:message|content_block)_/;

/**
 * Which protocol an event's data is, by its `type` or its shape; `undefined` when it does not say.
 * Read only when a stream ends unfinished: is it cut, or is `protocol` wrong?
 */
export function protocolOfEvent(data: string): ProtocolName | undefined {
  let event;
  try {
    event = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof event !== "object" || event === null) return undefined;
  const type = event.type;
  if (typeof type === "string") {
    if (type.startsWith("response.")) return "openai-responses";
    if (ANTHROPIC_TYPE.test(type)) return "anthropic-messages";
  }
  if (Array.isArray(event.choices)) return "openai-chat";
  return undefined;
}
