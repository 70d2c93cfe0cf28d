/**
 * What the core (`openai-chat`) tests share: the request body, a good reply, the options
 * with short retry delays, and small helpers for failing calls.
 *
 * @module
 */

import { expect } from "vitest";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import type { StreamEvent } from "../../src/core/chat_result.ts";
import { BASE_URL, type Reply, sseReply } from "./msw.ts";
import { collect, openAIText } from "./sse.ts";

/** The chat request body every core test sends. */
export const BODY = { model: "gpt-test", messages: [{ role: "user", content: "Hi" }] };

/** A good answer: "ok" in two text events. */
export const OK: Reply = sseReply(openAIText(["o", "k"]));

/**
 * Options for the MSW upstream at {@link BASE_URL} with 1–2 ms retry delays, plus `extra`.
 *
 * @example
 * ```ts
 * streamChat(options({ maxRetries: 0 }));
 * ```
 */
export function options(extra: Partial<StreamChatOptions> = {}): StreamChatOptions {
  return { baseURL: BASE_URL, body: BODY, retry: { initialDelayMs: 1, maxDelayMs: 2 }, ...extra };
}

/**
 * Rejection of `promise`, failing the test if it resolves.
 *
 * @example
 * ```ts
 * expect(await rejection(stream.result)).toBeInstanceOf(InterruptedError);
 * ```
 */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/**
 * Runs a call that must fail, by iteration, and returns its error and events.
 *
 * @example
 * ```ts
 * const { error } = await failure({ maxRetries: 0 });
 * ```
 */
export async function failure(
  extra: Partial<StreamChatOptions> = {},
): Promise<{ events: StreamEvent[]; error: Error & { attempts?: number } }> {
  const { events, error, result } = await collect(streamChat(options(extra)));
  expect(result).toBeUndefined();
  return { events, error: error as Error & { attempts?: number } };
}

/**
 * An OpenAI-style error body.
 *
 * @example
 * ```ts
 * jsonReply(429, errorBody("slow down", "rate_limit_exceeded"));
 * ```
 */
export function errorBody(
  message: string,
  type = "server_error",
  code: string | null = null,
): { error: { message: string; type: string; param: null; code: string | null } } {
  return { error: { message, type, param: null, code } };
}
