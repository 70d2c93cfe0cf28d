/**
 * Streaming refused: a 400 saying the model cannot stream → one non-streaming request, its
 * answer delivered as the same events and result, with `streamed: false`.
 */

import { HttpResponse } from "msw";
import { describe, expect, test } from "vitest";
import {
  APIStatusError,
  isAPIStatusError,
  isInterruptedError,
  isTimeoutError,
  streamChat,
} from "../../src/index.ts";
import { isStreamingRefused } from "../../src/client/non_streaming.ts";
import { useMswServer } from "../support/msw.ts";
import { anthropicWire } from "./fixtures/anthropic_wire.ts";
import { responsesWire } from "./fixtures/responses_wire.ts";
import { chatWire, collect, optionsFor, upstream, type WireFixture } from "./protocol_wire.ts";

const server = useMswServer();

const BASE = "https://llm.test/v1";

/** The provider's whole answer: reasoning, text and one tool call. */
const WHOLE: Array<[WireFixture, Record<string, unknown>]> = [
  [chatWire, {
    id: "chatcmpl-whole",
    object: "chat.completion",
    model: "o1-2024-12-17",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        reasoning_content: "Think.",
        content: "Whole answer.",
        refusal: null,
        tool_calls: [{
          id: "call_1",
          type: "function",
          function: { name: "f", arguments: '{"a":1}' },
        }],
      },
      finish_reason: "tool_calls",
    }],
    usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 },
  }],
  [anthropicWire, {
    id: "chatcmpl-whole",
    type: "message",
    role: "assistant",
    model: "o1-2024-12-17",
    content: [
      { type: "thinking", thinking: "Think.", signature: "sig" },
      { type: "text", text: "Whole answer." },
      { type: "tool_use", id: "call_1", name: "f", input: { a: 1 } },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 5, output_tokens: 7 },
  }],
  [responsesWire, {
    id: "chatcmpl-whole",
    object: "response",
    status: "completed",
    model: "o1-2024-12-17",
    output: [
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Think." }] },
      {
        type: "message",
        id: "msg_1",
        role: "assistant",
        content: [{ type: "output_text", text: "Whole answer.", annotations: [] }],
      },
      { type: "function_call", id: "fc_1", call_id: "call_1", name: "f", arguments: '{"a":1}' },
    ],
    usage: { input_tokens: 5, output_tokens: 7, total_tokens: 12 },
  }],
];

const REFUSED = {
  error: {
    message:
      "Unsupported value: 'stream' does not support true with this model. Supported values are: false.",
    type: "invalid_request_error",
    param: "stream",
    code: "unsupported_value",
  },
};

const options = optionsFor(BASE, "o1");

const CASES = WHOLE.map(([wire, whole]) => ({ protocol: wire.protocol, wire, whole }));

describe.each(CASES)("$protocol streaming refused", ({ wire, whole }) => {
  test("one non-streaming request; its answer arrives as events and a streamed: false result", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (n) => n === 1 ? HttpResponse.json(REFUSED, { status: 400 }) : HttpResponse.json(whole),
    );
    const run = await collect(streamChat(options(wire)));
    expect(run.error).toBeUndefined();
    expect(up.bodies[0]!.stream).toBe(true);
    expect(up.bodies[1]!.stream).toBe(false);
    expect(up.bodies[1]).not.toHaveProperty("stream_options");
    expect(up.headers[1]!.get("accept")).toBe("application/json");
    expect(
      up.headers[1]!.get(wire.protocol === "anthropic-messages" ? "x-api-key" : "authorization"),
    )
      .toMatch(/sk-test/);
    expect(run.events.map((e) => e.type)).toEqual([
      "open",
      "reasoning",
      "text",
      "tool-call",
      "tool-call-delta",
      "usage",
      "finish",
    ]);
    expect(run.result).toMatchObject({
      id: "chatcmpl-whole",
      model: "o1-2024-12-17",
      reasoning: "Think.",
      content: "Whole answer.",
      toolCalls: [{ index: 0, id: "call_1", name: "f", arguments: '{"a":1}' }],
      finishReason: "tool_calls",
      usage: { inputTokens: 5, outputTokens: 7, totalTokens: 12 },
      streamed: false,
      attempts: 2,
      target: { index: 0, baseURL: BASE, protocol: wire.protocol },
    });
    expect(up.count).toBe(2);
  });

  test("the whole answer's assistant turn is result.output, as the provider sent it", async () => {
    upstream(
      server,
      BASE,
      wire,
      (n) => n === 1 ? HttpResponse.json(REFUSED, { status: 400 }) : HttpResponse.json(whole),
    );
    const result = await streamChat(options(wire)).result;
    const w = whole as {
      content?: unknown;
      output?: unknown;
      choices?: Array<{ message: object }>;
    };
    const output = wire.protocol === "openai-responses"
      ? w.output
      : wire.protocol === "anthropic-messages"
      ? { role: "assistant", content: w.content }
      : w.choices![0]!.message;
    expect(result.output).toEqual(output);
  });

  test("a 400 about something else is thrown, with no second request", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      () =>
        HttpResponse.json({
          error: { message: "max_tokens: must be positive", type: "invalid_request_error" },
        }, {
          status: 400,
        }),
    );
    const error = await streamChat(options(wire)).result.catch((e: unknown) => e);
    expect(isAPIStatusError(error) && error.status).toBe(400);
    expect(up.count).toBe(1);
  });
});

describe("the non-streaming request", () => {
  test("is stopped at once by an abort", async () => {
    const controller = new AbortController();
    const up = upstream(server, BASE, chatWire, async (n, req) => {
      if (n === 1) return HttpResponse.json(REFUSED, { status: 400 });
      await new Promise((resolve) => req.signal.addEventListener("abort", resolve));
      return HttpResponse.json(WHOLE[0]![1]);
    });
    const result = streamChat(options(chatWire, { signal: controller.signal })).result
      .catch((e: unknown) => e);
    await up.arrived(2);
    controller.abort();
    expect(isInterruptedError(await result)).toBe(true);
    expect(up.count).toBe(2);
  });

  test("a timeout still ends it when an injected fetch ignores its signal", async () => {
    let calls = 0;
    const fetch = (): Promise<Response> => {
      calls++;
      if (calls === 1) return Promise.resolve(Response.json(REFUSED, { status: 400 }));
      return new Promise<Response>(() => {}); // never answers, never looks at the signal
    };
    const error = await streamChat(
      options(chatWire, { fetch, timeouts: { firstEventMs: 30 } }),
    ).result.catch((e: unknown) => e);
    expect(isTimeoutError(error) && [error.phase, error.attempts]).toEqual(["first-event", 2]);
    expect(calls).toBe(2);
  });

  test("is bounded by firstEventMs until its headers, and is not retried", async () => {
    const up = upstream(server, BASE, chatWire, async (n, req) => {
      if (n === 1) return HttpResponse.json(REFUSED, { status: 400 });
      await new Promise((resolve) => req.signal.addEventListener("abort", resolve));
      return HttpResponse.json(WHOLE[0]![1]);
    });
    const error = await streamChat(options(chatWire, { timeouts: { firstEventMs: 40 } })).result
      .catch((e: unknown) => e);
    expect(isTimeoutError(error) && [error.phase, error.attempts]).toEqual(["first-event", 2]);
    expect(up.count).toBe(2);
  });

  test("once its headers came, idleMs bounds the reading of its body", async () => {
    let calls = 0;
    let cancelled = false;
    const fetch = (): Promise<Response> => {
      calls++;
      if (calls === 1) return Promise.resolve(Response.json(REFUSED, { status: 400 }));
      // Headers at once, then the start of the JSON answer, then silence.
      const body = new ReadableStream<Uint8Array>({
        start: (c) => c.enqueue(new TextEncoder().encode('{"id":"chatcmpl-whole",')),
        cancel: () => void (cancelled = true),
      });
      return Promise.resolve(
        new Response(body, { headers: { "content-type": "application/json" } }),
      );
    };
    const error = await streamChat(
      options(chatWire, { fetch, timeouts: { firstEventMs: 60_000, idleMs: 40 } }),
    ).result.catch((e: unknown) => e);
    expect(isTimeoutError(error) && [error.phase, error.attempts]).toEqual(["idle", 2]);
    expect(calls).toBe(2);
    expect(cancelled).toBe(true);
  });

  test("an error status on it is thrown as APIStatusError", async () => {
    const up = upstream(
      server,
      BASE,
      chatWire,
      (n) =>
        HttpResponse.json(
          n === 1 ? REFUSED : { error: { message: "boom", type: "server_error" } },
          {
            status: n === 1 ? 400 : 500,
          },
        ),
    );
    const error = await streamChat(options(chatWire)).result.catch((e: unknown) => e);
    expect(isAPIStatusError(error) && [error.status, error.attempts]).toEqual([500, 2]);
    expect(up.count).toBe(2);
  });
});

describe("isStreamingRefused", () => {
  const refused = (body: unknown, status = 400) =>
    isStreamingRefused(new APIStatusError(status, {}, body));

  test.each([
    ["Streaming is not supported for this model", true],
    ["This model does not support streaming.", true],
    ["stream: true is unsupported for o1-pro", true],
    ["Your organization must be verified to stream this model.", false],
    ["The parameter `stream_options` is not supported with this model", false],
    ["max_tokens is not supported with this model", false],
  ])("%j → %s", (message, expected) => {
    expect(refused({ error: { message, type: "invalid_request_error" } })).toBe(expected);
  });

  test("param 'stream' is enough (the OpenAI verification message); other statuses never", () => {
    expect(
      refused({
        error: {
          message: "Your organization must be verified to stream this model.",
          param: "stream",
        },
      }),
    )
      .toBe(true);
    expect(refused({ error: { message: "Streaming is not supported" } }, 404)).toBe(false);
    expect(refused("streaming is not supported")).toBe(true);
    expect(refused({ error: "streaming is disabled for this deployment" })).toBe(true);
  });
});
