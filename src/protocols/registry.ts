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
