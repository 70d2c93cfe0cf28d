/**
 * A relay whose one upstream answers every request with a recording of `test/recorded/`, and
 * what stopstream itself makes of that recording: the two that relay tests compare.
 *
 * @module
 */

import { type ChatResult, type ProtocolName, streamChat } from "../../src/index.ts";
import { createRelay } from "../../src/relay/app.ts";
import { recording } from "./recorded.ts";

/**
 * The recording `name` as an upstream's SSE answer.
 *
 * @example
 * ```ts
 * const response = recordedAnswer("anthropic/text.sse");
 * ```
 */
export function recordedAnswer(name: string): Response {
  return new Response(recording(name), { headers: { "content-type": "text/event-stream" } });
}

/**
 * A relay whose one upstream (of `protocol`, model `up`, no retries) answers with `name`.
 *
 * @example
 * ```ts
 * const response = await recordedRelay("anthropic/text.sse", "anthropic-messages").request("/v1/models");
 * ```
 */
export function recordedRelay(
  name: string,
  protocol: ProtocolName,
): ReturnType<typeof createRelay> {
  return createRelay({
    upstreams: [{ baseURL: "https://upstream.test/v1", apiKey: "sk-up", protocol, model: "up" }],
    fetch: () => Promise.resolve(recordedAnswer(name)),
    maxRetries: 0,
  });
}

/**
 * What stopstream itself makes of the recording `name` (checked in recorded.test.ts).
 *
 * @example
 * ```ts
 * const result = await recordedResult("anthropic/text.sse", "anthropic-messages");
 * ```
 */
export function recordedResult(name: string, protocol: ProtocolName): Promise<ChatResult> {
  return streamChat({
    baseURL: "https://upstream.test/v1",
    protocol,
    body: { model: "up", messages: [], input: "Hi", max_tokens: 1 },
    maxRetries: 0,
    fetch: () => Promise.resolve(recordedAnswer(name)),
  }).result;
}
