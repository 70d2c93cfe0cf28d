/**
 * Conformance cases for the protocols whose decoders load on first use (`src/lazy.ts`): in each
 * runtime the suite runs in, no other case calls them, so this is the first call in a fresh
 * module graph and the decoder's `import()` is resolved by that runtime's own loader (in
 * Chromium, a chunk fetched by the page). The answer comes from an injected `fetch`: what is
 * checked is the loading, not the network.
 *
 * @module
 */

import type { ConformanceCase } from "./suite.ts";

const ANTHROPIC_SSE = [
  ["message_start", { type: "message_start", message: { id: "msg_1", model: "claude" } }],
  ["content_block_start", {
    type: "content_block_start",
    index: 0,
    content_block: { type: "text", text: "" },
  }],
  ["content_block_delta", {
    type: "content_block_delta",
    index: 0,
    delta: { type: "text_delta", text: "Hello" },
  }],
  ["content_block_stop", { type: "content_block_stop", index: 0 }],
  ["message_delta", {
    type: "message_delta",
    delta: { stop_reason: "end_turn" },
    usage: { output_tokens: 1 },
  }],
  ["message_stop", { type: "message_stop" }],
] as const;

const RESPONSES_SSE = [
  ["response.created", { type: "response.created", response: { id: "resp_1", model: "gpt" } }],
  ["response.output_text.delta", {
    type: "response.output_text.delta",
    output_index: 0,
    delta: "Hello",
  }],
  ["response.completed", {
    type: "response.completed",
    response: { id: "resp_1", status: "completed" },
  }],
] as const;

function sseFetch(events: ReadonlyArray<readonly [string, unknown]>): typeof fetch {
  const body = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  return () =>
    Promise.resolve(
      new Response(body.join(""), { headers: { "content-type": "text/event-stream" } }),
    );
}

function lazyCase(
  protocol: "anthropic-messages" | "openai-responses",
  events: ReadonlyArray<readonly [string, unknown]>,
): ConformanceCase {
  return {
    name: `the ${protocol} decoder loads on the first call and streams its answer`,
    async run(ctx) {
      const stream = ctx.lib.streamChat({
        baseURL: "https://provider.invalid/v1",
        protocol,
        body: { model: "m", max_tokens: 8, messages: [{ role: "user", content: "hi" }] },
        fetch: sseFetch(events),
        maxRetries: 0,
      });
      let text = "";
      for await (const event of stream) if (event.type === "text") text += event.text;
      const result = await stream.result;
      const got = JSON.stringify([text, result.content, result.finishReason, result.attempts]);
      const want = JSON.stringify(["Hello", "Hello", "stop", 1]);
      if (got !== want) throw new Error(`conformance: ${protocol}: expected ${want}, got ${got}`);
    },
  };
}

/**
 * The cases, one per lazily loaded protocol.
 *
 * @example
 * ```ts
 * for (const c of lazyProtocolCases) await c.run(ctx);
 * ```
 */
export const lazyProtocolCases: readonly ConformanceCase[] = [
  lazyCase("anthropic-messages", ANTHROPIC_SSE),
  lazyCase("openai-responses", RESPONSES_SSE),
];
