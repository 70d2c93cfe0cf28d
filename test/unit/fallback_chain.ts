/**
 * The two-target chain the fallback tests share: an openai-chat primary and an
 * anthropic-messages fallback on another origin with its own key.
 *
 * @module
 */

import type { StreamChatOptions } from "../../src/index.ts";
import { chatWire, FAST } from "./protocol_wire.ts";

/** The primary target's base URL (openai-chat). */
export const PRIMARY = "https://primary.test/v1";
/** The fallback target's base URL (anthropic-messages, another origin). */
export const ANTHROPIC = "https://anthropic.test/v1";

/**
 * Primary: openai-chat; fallback: anthropic-messages on another origin with its own key.
 *
 * @example
 * ```ts
 * const run = await collect(streamChat(chain({ maxRetries: 0 })));
 * ```
 */
export function chain(extra: Partial<StreamChatOptions> = {}): StreamChatOptions {
  return {
    baseURL: PRIMARY,
    apiKey: "sk-primary",
    headers: { "x-team": "blue" },
    body: chatWire.body("gpt-4o"),
    retry: FAST,
    fallbacks: [{
      baseURL: ANTHROPIC,
      apiKey: "sk-ant-fallback",
      protocol: "anthropic-messages",
      body: { model: "claude-sonnet-4-5", max_tokens: 512 },
    }],
    ...extra,
  };
}
