/**
 * The protocol registry: adding a wire protocol is one file plus one line here.
 *
 * @module
 */

import type { ProtocolName } from "../chat_options.ts";
import { anthropicMessages } from "./anthropic_messages.ts";
import { openAIChat } from "./openai_chat.ts";
import { openAIResponses } from "./openai_responses.ts";
import type { LazyProtocol, Protocol } from "./protocol.ts";

/**
 * Every protocol, by name (`streamChat` refuses any other `protocol`). `openai-chat`, what most
 * calls use, is whole; the others load their decoding on first use (`LazyProtocol`).
 *
 * @example
 * ```ts
 * PROTOCOLS["openai-chat"].name; // "openai-chat"
 * ```
 */
export const PROTOCOLS: Record<ProtocolName, Protocol | LazyProtocol> = {
  "openai-chat": openAIChat,
  "anthropic-messages": anthropicMessages,
  "openai-responses": openAIResponses,
};
