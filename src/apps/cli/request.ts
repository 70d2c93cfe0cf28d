// What the CLI sends: defaults by protocol and each protocol's request body for one prompt.

import type { ProtocolName } from "../../core/chat_options.ts";

/** The protocols the CLI speaks, in the order its usage lists them. */
export const PROTOCOL_DEFAULTS: Record<ProtocolName, { baseURL: string; keyEnv: string }> = {
  "openai-chat": { baseURL: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY" },
  "anthropic-messages": { baseURL: "https://api.anthropic.com/v1", keyEnv: "ANTHROPIC_API_KEY" },
  "openai-responses": { baseURL: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY" },
};

/** Anthropic requires `max_tokens`; this is a generous default for a terminal answer. */
const ANTHROPIC_MAX_TOKENS = 8192;

export function buildBody(
  protocol: ProtocolName,
  model: string,
  prompt: string,
  system: string | undefined,
): Record<string, unknown> {
  switch (protocol) {
    case "anthropic-messages":
      return {
        model,
        max_tokens: ANTHROPIC_MAX_TOKENS,
        ...(system !== undefined ? { system } : {}),
        messages: [{ role: "user", content: prompt }],
      };
    case "openai-responses":
      return { model, input: prompt, ...(system !== undefined ? { instructions: system } : {}) };
    case "openai-chat": {
      const messages: Array<{ role: string; content: string }> = [];
      if (system !== undefined) messages.push({ role: "system", content: system });
      messages.push({ role: "user", content: prompt });
      return { model, messages };
    }
  }
}
