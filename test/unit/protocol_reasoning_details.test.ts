/**
 * `result.reasoningDetails`: Anthropic's signed thinking blocks and redacted thinking blocks,
 * kept whole so an agent can send them back, on streamed and non-streaming answers.
 */

import { HttpResponse } from "msw";
import { describe, expect, test } from "vitest";
import { Accumulator } from "../../src/core/accumulator.ts";
import { streamChat } from "../../src/index.ts";
import { anthropicMessages } from "../../src/protocols/anthropic_messages.ts";
import { useMswServer } from "../support/msw.ts";
import { anthropicWire } from "./fixtures/anthropic_wire.ts";
import { responsesWire } from "./fixtures/responses_wire.ts";
import { chatWire, collect, optionsFor, sseResponse, upstream } from "./protocol_wire.ts";

const server = useMswServer();

const BASE = "https://api.anthropic.test/v1";
const SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds";
const REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP";

const options = optionsFor(BASE, "model");

const block = (type: string, data: Record<string, unknown> = {}): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
const start = (index: number, content_block: Record<string, unknown>): string =>
  block("content_block_start", { index, content_block });
const delta = (index: number, delta: Record<string, unknown>): string =>
  block("content_block_delta", { index, delta });
const stop = (index: number): string => block("content_block_stop", { index });
const MESSAGE_START = block("message_start", {
  message: {
    id: "msg_01",
    type: "message",
    role: "assistant",
    content: [],
    model: "claude-sonnet-4-5-20250929",
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 41, output_tokens: 3 },
  },
});
const end = (reason: string): string[] => [
  block("message_delta", {
    delta: { stop_reason: reason, stop_sequence: null },
    usage: { output_tokens: 58 },
  }),
  block("message_stop"),
];

describe("anthropic-messages streams", () => {
  test("a signed thinking block before a tool call is in reasoningDetails, whole and exact", async () => {
    const up = upstream(server, BASE, anthropicWire, (_n, req) =>
      sseResponse(req, [
        MESSAGE_START,
        start(0, { type: "thinking", thinking: "", signature: "" }),
        delta(0, { type: "thinking_delta", thinking: "I need the weather. " }),
        block("ping"),
        delta(0, { type: "thinking_delta", thinking: "Call get_weather." }),
        delta(0, { type: "signature_delta", signature: SIGNATURE }),
        stop(0),
        start(1, { type: "text", text: "" }),
        delta(1, { type: "text_delta", text: "Checking." }),
        stop(1),
        start(2, { type: "tool_use", id: "toolu_01", name: "get_weather", input: {} }),
        delta(2, { type: "input_json_delta", partial_json: '{"city":"Oslo"}' }),
        stop(2),
        ...end("tool_use"),
      ]));
    const run = await collect(streamChat(options(anthropicWire)));
    expect(run.error).toBeUndefined();
    expect(run.result?.reasoningDetails).toEqual([
      { type: "thinking", thinking: "I need the weather. Call get_weather.", signature: SIGNATURE },
    ]);
    expect(run.result).toMatchObject({
      reasoning: "I need the weather. Call get_weather.",
      content: "Checking.",
      toolCalls: [{ index: 0, id: "toolu_01", name: "get_weather", arguments: '{"city":"Oslo"}' }],
      finishReason: "tool_calls",
    });
    // No new event type: the signature is only in the result.
    expect(run.events.map((e) => e.type)).toEqual([
      "open",
      "reasoning",
      "reasoning",
      "text",
      "tool-call",
      "tool-call-delta",
      "usage",
      "finish",
    ]);
    expect(up.count).toBe(1);
  });

  test("redacted_thinking blocks are kept as opaque data, in order, and are not reasoning text", async () => {
    const up = upstream(server, BASE, anthropicWire, (_n, req) =>
      sseResponse(req, [
        MESSAGE_START,
        start(0, { type: "thinking", thinking: "", signature: "" }),
        delta(0, { type: "thinking_delta", thinking: "First." }),
        delta(0, { type: "signature_delta", signature: "sig-1" }),
        stop(0),
        start(1, { type: "redacted_thinking", data: REDACTED }),
        stop(1),
        start(2, { type: "thinking", thinking: "", signature: "" }),
        delta(2, { type: "thinking_delta", thinking: "Second." }),
        delta(2, { type: "signature_delta", signature: "sig-2" }),
        stop(2),
        start(3, { type: "text", text: "" }),
        delta(3, { type: "text_delta", text: "Done." }),
        stop(3),
        ...end("end_turn"),
      ]));
    const run = await collect(streamChat(options(anthropicWire)));
    expect(run.result?.reasoningDetails).toEqual([
      { type: "thinking", thinking: "First.", signature: "sig-1" },
      { type: "redacted_thinking", data: REDACTED },
      { type: "thinking", thinking: "Second.", signature: "sig-2" },
    ]);
    expect(run.result?.reasoning).toBe("First.Second.");
    expect(run.result?.content).toBe("Done.");
    expect(run.events.filter((e) => e.type === "reasoning")).toHaveLength(2);
    expect(up.count).toBe(1);
  });

  test("a stream cut inside a thinking block returns the entry unsigned (onPartial: return)", async () => {
    const up = upstream(server, BASE, anthropicWire, (_n, req) =>
      sseResponse(req, [
        MESSAGE_START,
        start(0, { type: "thinking", thinking: "", signature: "" }),
        delta(0, { type: "thinking_delta", thinking: "Half a th" }),
      ], "drop"));
    const result = await streamChat(options(anthropicWire, { onPartial: "return" })).result;
    expect(result.partial).toBe(true);
    expect(result.reasoningDetails).toEqual([
      { type: "thinking", thinking: "Half a th", signature: "" },
    ]);
    expect(up.count).toBe(1);
  });

  test("a continuation keeps the first attempt's blocks and adds none twice", async () => {
    const up = upstream(server, BASE, anthropicWire, (n, req) =>
      n === 1
        ? sseResponse(req, [
          MESSAGE_START,
          start(0, { type: "thinking", thinking: "", signature: "" }),
          delta(0, { type: "thinking_delta", thinking: "Think." }),
          delta(0, { type: "signature_delta", signature: SIGNATURE }),
          stop(0),
          start(1, { type: "text", text: "" }),
          delta(1, { type: "text_delta", text: "The answer" }),
        ], "drop")
        : sseResponse(req, [
          MESSAGE_START,
          start(0, { type: "text", text: "" }),
          delta(0, { type: "text_delta", text: " is 42." }),
          stop(0),
          ...end("end_turn"),
        ]));
    const result = await streamChat(options(anthropicWire, { onPartial: "continue" })).result;
    expect(result).toMatchObject({ content: "The answer is 42.", continuations: 1 });
    expect(result.reasoningDetails).toEqual([
      { type: "thinking", thinking: "Think.", signature: SIGNATURE },
    ]);
    expect(up.count).toBe(2);
  });
});

describe("anthropic-messages non-streaming answer (streaming refused)", () => {
  test("thinking, redacted_thinking and tool_use blocks give the same reasoningDetails", async () => {
    const refused = {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "Unsupported value: 'stream' does not support true with this model.",
        param: "stream",
      },
    };
    const whole = {
      id: "msg_whole",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [
        { type: "thinking", thinking: "Think.", signature: SIGNATURE },
        { type: "redacted_thinking", data: REDACTED },
        { type: "text", text: "Calling." },
        { type: "tool_use", id: "toolu_01", name: "f", input: { a: 1 } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 7 },
    };
    const up = upstream(
      server,
      BASE,
      anthropicWire,
      (n) => n === 1 ? HttpResponse.json(refused, { status: 400 }) : HttpResponse.json(whole),
    );
    const result = await streamChat(options(anthropicWire)).result;
    expect(result.streamed).toBe(false);
    expect(result.reasoningDetails).toEqual([
      { type: "thinking", thinking: "Think.", signature: SIGNATURE },
      { type: "redacted_thinking", data: REDACTED },
    ]);
    expect(result).toMatchObject({
      reasoning: "Think.",
      content: "Calling.",
      toolCalls: [{ id: "toolu_01", name: "f", arguments: '{"a":1}' }],
    });
    expect(up.bodies[1]!.stream).toBe(false);
    expect(up.count).toBe(2);
  });
});

describe("protocols without signed thinking", () => {
  test.each([chatWire, responsesWire, anthropicWire])(
    "$protocol: reasoning and text without thinking blocks leave reasoningDetails absent",
    async (wire) => {
      const blocks = wire === anthropicWire
        ? [...wire.start(), wire.text("Hi"), ...wire.end()]
        : [...wire.start(), wire.reasoning("Hmm."), wire.text("Hi"), ...wire.end()];
      const up = upstream(server, BASE, wire, (_n, req) => sseResponse(req, blocks));
      const result = await streamChat(options(wire)).result;
      expect(result.content).toBe("Hi");
      if (wire !== anthropicWire) expect(result.reasoning).toBe("Hmm.");
      expect(result).not.toHaveProperty("reasoningDetails");
      expect(up.count).toBe(1);
    },
  );
});

describe("reasoning blocks", () => {
  test("reasoning text reaches only the open block's entry, and a closed entry gets no more", () => {
    const acc = new Accumulator(null);
    const decoder = anthropicMessages.createDecoder(acc);
    const send = (data: Record<string, unknown>): void => {
      decoder.onEvent(undefined, JSON.stringify(data));
    };
    const thinking = { type: "thinking", thinking: "", signature: "" };
    send({ type: "content_block_start", index: 0, content_block: thinking });
    send({
      type: "content_block_delta",
      index: 0,
      delta: { type: "thinking_delta", thinking: "in" },
    });
    send({
      type: "content_block_delta",
      index: 0,
      delta: { type: "signature_delta", signature: "s1" },
    });
    send({
      type: "content_block_delta",
      index: 0,
      delta: { type: "signature_delta", signature: "s2" },
    });
    send({ type: "content_block_stop", index: 0 });
    send({
      type: "content_block_start",
      index: 1,
      content_block: { ...thinking, thinking: " after" },
    });
    send({ type: "content_block_stop", index: 1 });
    expect(acc.reasoning).toBe("in after");
    expect(acc.toResult(1).reasoningDetails).toEqual([
      { type: "thinking", thinking: "in", signature: "s1s2" },
      { type: "thinking", thinking: " after", signature: "" },
    ]);
  });
});
