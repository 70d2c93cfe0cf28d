/**
 * What the CLI sends: defaults by protocol (base URL, key variable) and the request body each
 * protocol expects for one prompt.
 *
 * @module
 */

import type { ProtocolName } from "../chat_options.ts";

/** Where each protocol's official API lives, and which variable holds its key by default. */
const DEFAULTS: Record<ProtocolName, { baseURL: string; keyEnv: string }> = {
  "openai-chat": { baseURL: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY" },
  "openai-responses": { baseURL: "https://api.openai.com/v1", keyEnv: "OPENAI_API_KEY" },
  "anthropic-messages": { baseURL: "https://api.anthropic.com/v1", keyEnv: "ANTHROPIC_API_KEY" },
};

/** Anthropic requires `max_tokens`; this is a generous default for a terminal answer. */
const ANTHROPIC_MAX_TOKENS = 8192;

/**
 * The official base URL of a protocol, used when `--base-url` is not given.
 *
 * @example
 * ```ts
 * defaultBaseURL("anthropic-messages"); // "https://api.anthropic.com/v1"
 * ```
 */
export function defaultBaseURL(protocol: ProtocolName): string {
  return DEFAULTS[protocol].baseURL;
}

/**
 * The environment variable read for the key when `--api-key-env` is not given.
 *
 * @example
 * ```ts
 * defaultKeyEnv("openai-chat"); // "OPENAI_API_KEY"
 * ```
 */
export function defaultKeyEnv(protocol: ProtocolName): string {
  return DEFAULTS[protocol].keyEnv;
}

/**
 * The provider request object for one prompt (and optional system prompt).
 *
 * @example
 * ```ts
 * buildBody("openai-chat", "gpt-4o-mini", "Hi", undefined);
 * // { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }
 * ```
 */
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
