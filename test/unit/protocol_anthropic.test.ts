/**
 * The anthropic-messages protocol against recorded streams in Anthropic's wire format.
 */

import { describe, expect, test } from "vitest";
import {
  isConnectionError,
  isUpstreamStreamError,
  streamChat,
  type StreamChatOptions,
} from "../../src/index.ts";
import { anthropicMessages } from "../../src/protocols/anthropic_messages.ts";
import { useMswServer } from "../support/msw.ts";
import { anthropicWire } from "./fixtures/anthropic_wire.ts";
import { chunkedResponse, expectSplitInvariant, fixture, replayer } from "./protocol_replay.ts";
import { collect, optionsFor, sseResponse, upstream } from "./protocol_wire.ts";

const server = useMswServer();

const BASE = "https://api.anthropic.test/v1";
const BODY = {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  messages: [{ role: "user", content: "Hello" }],
};

const wireOptions = optionsFor(BASE, BODY, "sk-ant-test");
const options = (extra: Partial<StreamChatOptions> = {}): StreamChatOptions =>
  wireOptions(anthropicWire, extra);

const replay = replayer(server, BASE, anthropicWire);

describe("anthropic-messages request", () => {
  test("posts to /messages with x-api-key, anthropic-version and stream: true", async () => {
    const up = replay("anthropic_text.sse");
    await streamChat(options()).result;
    expect(up.count).toBe(1);
    const headers = up.headers[0]!;
    expect(headers.get("x-api-key")).toBe("sk-ant-test");
    expect(headers.get("anthropic-version")).toBe("2023-06-01");
    expect(headers.get("authorization")).toBeNull();
    expect(headers.get("content-type")).toBe("application/json");
    expect(headers.get("accept")).toBe("text/event-stream");
    expect(up.bodies[0]).toEqual({ ...BODY, stream: true });
  });

  test("the caller's anthropic-version, x-api-key and extra headers win", async () => {
    const up = replay("anthropic_text.sse");
    await streamChat(options({
      headers: {
        "anthropic-version": "2024-01-01",
        "x-api-key": "gateway-key",
        "anthropic-beta": "interleaved-thinking-2025-05-14",
      },
    })).result;
    const headers = up.headers[0]!;
    expect(headers.get("anthropic-version")).toBe("2024-01-01");
    expect(headers.get("x-api-key")).toBe("gateway-key");
    expect(headers.get("anthropic-beta")).toBe("interleaved-thinking-2025-05-14");
    expect(up.count).toBe(1);
  });

  test("the continuation body is an assistant prefill with trailing whitespace trimmed", () => {
    const body = anthropicMessages.continuationBody!(BODY, "The answer is \n");
    expect(body.messages).toEqual([...BODY.messages, {
      role: "assistant",
      content: "The answer is",
    }]);
    expect(BODY.messages).toHaveLength(1);
  });
});

describe("anthropic-messages stream", () => {
  test("text: deltas become text events; pings are not content; usage counts cache reads", async () => {
    const up = replay("anthropic_text.sse");
    const run = await collect(streamChat(options()));
    expect(run.events.filter((e) => e.type === "text").map((e) => e.type === "text" && e.text))
      .toEqual(["Hello", "! How can I help", " you today?"]);
    expect(run.result).toMatchObject({
      id: "msg_01XFDUDYJgAACzvnptvVoYEL",
      model: "claude-sonnet-4-5-20250929",
      content: "Hello! How can I help you today?",
      finishReason: "stop",
      providerFinishReason: "end_turn",
      usage: { inputTokens: 2060, outputTokens: 12, totalTokens: 2072, cachedInputTokens: 2048 },
    });
    expect(run.result?.usage?.raw).toMatchObject({ input_tokens: 12, output_tokens: 12 });
    expect(up.count).toBe(1);
  });

  test("thinking: thinking deltas are reasoning, the signature is not text", async () => {
    const up = replay("anthropic_thinking.sse");
    const run = await collect(streamChat(options()));
    expect(run.result?.reasoning).toBe("The user asks for 27 * 453. 27 * 453 = 12231.");
    expect(run.result?.content).toBe("27 × 453 = **12,231**");
    const kinds = run.events.map((e) => e.type).filter((t) => t === "reasoning" || t === "text");
    expect(kinds).toEqual(["reasoning", "reasoning", "text"]);
    expect(up.count).toBe(1);
  });

  test("parallel tool_use blocks become tool calls with concatenated partial JSON", async () => {
    const up = replay("anthropic_tools.sse");
    const run = await collect(streamChat(options()));
    expect(run.result?.content).toBe("I'll check the weather in both cities.");
    expect(run.result?.toolCalls).toEqual([
      {
        index: 0,
        id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        name: "get_weather",
        arguments: '{"location": "Paris"}',
      },
      {
        index: 1,
        id: "toolu_01HdVQ3Wm8zcTp6kzD4a8Pmq",
        name: "get_weather",
        arguments: '{"location": "Oslo"}',
      },
      { index: 2, id: "toolu_01A09q90qw90lq917835lq9", name: "get_time", arguments: "{}" },
    ]);
    expect(run.result).toMatchObject({
      finishReason: "tool_calls",
      providerFinishReason: "tool_use",
    });
    expect(run.events.filter((e) => e.type === "tool-call")).toEqual([
      { type: "tool-call", index: 0, id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", name: "get_weather" },
      { type: "tool-call", index: 1, id: "toolu_01HdVQ3Wm8zcTp6kzD4a8Pmq", name: "get_weather" },
      { type: "tool-call", index: 2, id: "toolu_01A09q90qw90lq917835lq9", name: "get_time" },
    ]);
    const deltas = run.events.filter((e) => e.type === "tool-call-delta" && e.index === 0);
    expect(deltas.map((e) => e.type === "tool-call-delta" && e.argumentsDelta))
      .toEqual(['{"location": "Par', 'is"}']);
    expect(up.count).toBe(1);
  });

  test.each([
    ["anthropic_max_tokens.sse", "length", "max_tokens", "Once upon a"],
    ["anthropic_refusal.sse", "content_filter", "refusal", "I can"],
  ])("%s ends with finishReason %s", async (name, finishReason, provider, content) => {
    const up = replay(name);
    const result = await streamChat(options()).result;
    expect(result).toMatchObject({ finishReason, providerFinishReason: provider, content });
    expect(up.count).toBe(1);
  });

  test("an overloaded_error event before content is retried", async () => {
    const up = replay("anthropic_error.sse", "anthropic_text.sse");
    const run = await collect(streamChat(options()));
    const retry = run.events.find((e) => e.type === "retry");
    expect(retry?.type === "retry" && isUpstreamStreamError(retry.error) && retry.error.errorType)
      .toBe("overloaded_error");
    expect(run.result?.content).toBe("Hello! How can I help you today?");
    expect(up.count).toBe(2);
  });

  test.each([
    ["overloaded_error", true],
    ["api_error", true],
    ["rate_limit_error", true],
    ["invalid_request_error", false],
    ["authentication_error", false],
    ["permission_error", false],
  ])("an in-stream %s is retryable: %s", async (type, retryable) => {
    const error = `event: error\ndata: ${
      JSON.stringify({ type: "error", error: { type, message: "x" } })
    }\n\n`;
    const up = upstream(
      server,
      BASE,
      anthropicWire,
      (_n, req) => sseResponse(req, [...anthropicWire.start(), error]),
    );
    const failure = await streamChat(options({ maxRetries: 0 })).result.catch((e: unknown) => e);
    expect(isUpstreamStreamError(failure) && [failure.errorType, failure.retryable])
      .toEqual([type, retryable]);
    expect(up.count).toBe(1);
  });

  test("a body that ends after message_delta (no message_stop) is complete", async () => {
    const text = fixture("anthropic_text.sse");
    const up = upstream(
      server,
      BASE,
      anthropicWire,
      () => chunkedResponse(text.slice(0, text.indexOf("event: message_stop"))),
    );
    const result = await streamChat(options()).result;
    expect(result).toMatchObject({
      content: "Hello! How can I help you today?",
      finishReason: "stop",
    });
    expect(up.count).toBe(1);
  });

  test("a body that ends before message_delta is a cut connection", async () => {
    const text = fixture("anthropic_text.sse");
    const up = upstream(
      server,
      BASE,
      anthropicWire,
      () => chunkedResponse(text.slice(0, text.indexOf("event: content_block_stop"))),
    );
    const error = await streamChat(options({ onPartial: "return" })).result;
    expect(error.partial).toBe(true);
    expect(isConnectionError(error.error)).toBe(true);
    expect(up.count).toBe(1);
  });

  test("any split of the byte stream gives the same result", async () => {
    const names = ["anthropic_text.sse", "anthropic_thinking.sse", "anthropic_tools.sse"];
    await expectSplitInvariant(server, BASE, anthropicWire, names, 6000, options);
  });
});
