/**
 * Conformance cases for what the first cases do not touch: the Anthropic and Responses
 * decoders, a resumable stream's resume, and the non-streaming fallback. The answers come from an
 * injected `fetch`: what is checked is the runtime, not the network.
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

function protocolCase(
  protocol: "anthropic-messages" | "openai-responses",
  events: ReadonlyArray<readonly [string, unknown]>,
): ConformanceCase {
  return {
    name: `the ${protocol} protocol streams its answer`,
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

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  JSON.stringify({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

/**
 * A relay-style resumable stream: the first response says so (`x-stopstream-stream-id`) and
 * drops after event 2; `GET …/streams/{id}` with `Last-Event-ID: 2` sends the rest.
 */
const resumableCase: ConformanceCase = {
  name: "a resumable stream resumes a drop where it broke off",
  async run(ctx) {
    const seen: string[] = [];
    const sse = (id: number, data: string) => `id: ${id}\ndata: ${data}\n\n`;
    const encoder = new TextEncoder();
    const headers = { "content-type": "text/event-stream", "x-stopstream-stream-id": "strm_c1" };
    const fetch: typeof globalThis.fetch = (input, init) => {
      const request = new Request(input, init);
      seen.push(
        `${request.method} ${new URL(request.url).pathname} ${
          request.headers.get("last-event-id") ?? "-"
        }`,
      );
      if (request.method === "GET") {
        const rest = sse(3, chunk({}, "stop")) + sse(4, "[DONE]");
        return Promise.resolve(new Response(rest, { headers }));
      }
      // One event a pull, then the drop (an error in `start` would discard what was queued).
      const events = [
        sse(1, chunk({ role: "assistant", content: "Hel" })),
        sse(2, chunk({ content: "lo" })),
      ];
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = events.shift();
          if (next !== undefined) controller.enqueue(encoder.encode(next));
          else controller.error(new TypeError("network connection lost"));
        },
      });
      return Promise.resolve(new Response(body, { headers }));
    };
    const stream = ctx.lib.streamChat({
      baseURL: "https://relay.invalid/v1",
      body: { model: "m", messages: [{ role: "user", content: "hi" }] },
      fetch,
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
    });
    let text = "";
    for await (const event of stream) if (event.type === "text") text += event.text;
    const result = await stream.result;
    const got = JSON.stringify([text, result.content, result.finishReason, result.resumes, seen]);
    const want = JSON.stringify([
      "Hello",
      "Hello",
      "stop",
      1,
      ["POST /v1/chat/completions -", "GET /v1/streams/strm_c1 2"],
    ]);
    if (got !== want) throw new Error(`conformance: resumable: expected ${want}, got ${got}`);
  },
};

/**
 * A provider that refuses to stream this model (`400`, `param: "stream"`): the non-streaming
 * fallback makes one whole request, whose answer arrives as the same events.
 */
const nonStreamingCase: ConformanceCase = {
  name: "a provider that refuses to stream gets one non-streaming request",
  async run(ctx) {
    const seen: unknown[] = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const body = JSON.parse(await new Request(input, init).text());
      seen.push(body.stream);
      if (body.stream === true) {
        const refusal = { error: { message: "Streaming is not supported", param: "stream" } };
        return Response.json(refusal, { status: 400 });
      }
      return Response.json({
        id: "chatcmpl-1",
        model: "m",
        choices: [{
          index: 0,
          message: { role: "assistant", content: "Hello" },
          finish_reason: "stop",
        }],
      });
    };
    const stream = ctx.lib.streamChat({
      baseURL: "https://provider.invalid/v1",
      body: { model: "m", messages: [{ role: "user", content: "hi" }] },
      fetch,
      maxRetries: 0,
    });
    let text = "";
    for await (const event of stream) if (event.type === "text") text += event.text;
    const result = await stream.result;
    const got = JSON.stringify([text, result.content, result.streamed, result.attempts, seen]);
    const want = JSON.stringify(["Hello", "Hello", false, 2, [true, false]]);
    if (got !== want) throw new Error(`conformance: non-streaming: expected ${want}, got ${got}`);
  },
};

/**
 * The cases: one per protocol beyond openai-chat, the resumable stream and the non-streaming
 * fallback.
 *
 * @example
 * ```ts
 * for (const c of protocolCases) await c.run(ctx);
 * ```
 */
export const protocolCases: readonly ConformanceCase[] = [
  protocolCase("anthropic-messages", ANTHROPIC_SSE),
  protocolCase("openai-responses", RESPONSES_SSE),
  resumableCase,
  nonStreamingCase,
];
