import type { ProtocolName } from "../core/chat_options.ts";
import { anthropicMessages } from "./anthropic_messages.ts";
import { openAIChat } from "./openai_chat.ts";
import { openAIResponses } from "./openai_responses.ts";
import type { Protocol } from "./protocol.ts";
import type { EventData } from "./event_data.ts";
import { parseOr } from "./output.ts";

export const PROTOCOLS: Record<ProtocolName, Protocol> = {
  "openai-chat": openAIChat,
  "anthropic-messages": anthropicMessages,
  "openai-responses": openAIResponses,
};

const ANTHROPIC_TYPE = /^(?:message|content_block)_/;

/**
 * Which protocol an event's data is, by its shape or its `type`; `undefined` when it does not say.
 * Read only when a stream gave the call nothing: is it cut or empty, or is `protocol` wrong?
 */
export function protocolOfEvent(data: string): ProtocolName | undefined {
  const event: EventData = parseOr(data, undefined);
  if (Array.isArray(event?.choices)) return "openai-chat";
  const type = event?.type;
  if (typeof type !== "string") return undefined;
  if (type.startsWith("response.")) return "openai-responses";
  return ANTHROPIC_TYPE.test(type) ? "anthropic-messages" : undefined;
}
