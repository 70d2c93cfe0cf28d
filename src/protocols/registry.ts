/**
 * The protocol registry: adding a wire protocol is one file plus one line here.
 *
 * @module
 */

import type { ProtocolName } from "../types.ts";
import { anthropicMessages } from "./anthropic_messages.ts";
import { openAIChat } from "./openai_chat.ts";
import { openAIResponses } from "./openai_responses.ts";
import type { Protocol } from "./protocol.ts";

const PROTOCOLS: Partial<Record<ProtocolName, Protocol>> = {
  "openai-chat": openAIChat,
  "anthropic-messages": anthropicMessages,
  "openai-responses": openAIResponses,
};

/**
 * The protocol called `name`, or a `TypeError` naming the known ones.
 *
 * @example
 * ```ts
 * getProtocol("openai-chat").name; // "openai-chat"
 * ```
 */
export function getProtocol(name: string): Protocol {
  const protocol = PROTOCOLS[name as ProtocolName];
  if (protocol === undefined) {
    throw new TypeError(
      `stopstream: unknown protocol ${JSON.stringify(name)}; expected one of ${
        Object.keys(PROTOCOLS).join(", ")
      }`,
    );
  }
  return protocol;
}
