import type { ProtocolName } from "../core/chat_options.ts";
import { anthropicMessages } from "./anthropic_messages.ts";
import { openAIChat } from "./openai_chat.ts";
import { openAIResponses } from "./openai_responses.ts";
import type { LazyProtocol, Protocol } from "./protocol.ts";

/** `openai-chat`, what most calls use, is whole; the others load their decoding on first use. */
export const PROTOCOLS: Record<ProtocolName, Protocol | LazyProtocol> = {
  "openai-chat": openAIChat,
  "anthropic-messages": anthropicMessages,
  "openai-responses": openAIResponses,
};
