/**
 * anthropic-messages: content blocks the result does not hold, usage merging and stop reasons,
 * on scripted streams in Anthropic's wire format.
 */

import { describe, expect, test } from "vitest";
import { streamChat, type StreamChatOptions } from "../../src/index.ts";
import { useMswServer } from "../support/msw.ts";
import { anthropicWire } from "./fixtures/anthropic_wire.ts";
import { collect, optionsFor, sseResponse, upstream } from "./protocol_wire.ts";

const server = useMswServer();

const BASE = "https://api.anthropic.test/v1";

const wireOptions = optionsFor(BASE, "claude-sonnet-4-5", "sk-ant-test");
const options = (extra: Partial<StreamChatOptions> = {}): StreamChatOptions =>
  wireOptions(anthropicWire, extra);

describe("anthropic-messages events", () => {
  test("server_tool_use blocks run at Anthropic: no tool call, text around them kept as two paragraphs", async () => {
    const block = (data: Record<string, unknown>): string =>
      `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
    const up = upstream(server, BASE, anthropicWire, (_n, req) =>
      sseResponse(req, [
        ...anthropicWire.start(),
        anthropicWire.text("Let me search. "),
        block({ type: "content_block_stop", index: 0 }),
        block({
          type: "content_block_start",
          index: 1,
          content_block: {
            type: "server_tool_use",
            id: "srvtoolu_01",
            name: "web_search",
            input: {},
          },
        }),
        block({
          type: "content_block_delta",
          index: 1,
          delta: { type: "input_json_delta", partial_json: '{"query": "oslo weather"}' },
        }),
        block({ type: "content_block_stop", index: 1 }),
        block({
          type: "content_block_start",
          index: 2,
          content_block: {
            type: "web_search_tool_result",
            tool_use_id: "srvtoolu_01",
            content: [],
          },
        }),
        block({ type: "content_block_stop", index: 2 }),
        block({ type: "content_block_start", index: 3, content_block: { type: "text", text: "" } }),
        block({
          type: "content_block_delta",
          index: 3,
          delta: { type: "text_delta", text: "Sunny." },
        }),
        ...anthropicWire.end(),
      ]));
    const run = await collect(streamChat(options()));
    // The text after the search and its result is a new paragraph (see docs/output.md).
    expect(run.result).toMatchObject({ content: "Let me search. \n\nSunny.", toolCalls: [] });
    expect(run.events.some((e) => e.type === "tool-call" || e.type === "tool-call-delta")).toBe(
      false,
    );
    expect(up.count).toBe(1);
  });

  test("null input counts in message_delta do not erase message_start's", async () => {
    const delta = `event: message_delta\ndata: ${
      JSON.stringify({
        type: "message_delta",
        delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { input_tokens: null, cache_read_input_tokens: null, output_tokens: 30 },
      })
    }\n\n`;
    const up = upstream(
      server,
      BASE,
      anthropicWire,
      (_n, req) =>
        sseResponse(req, [
          ...anthropicWire.start(),
          anthropicWire.text("x"),
          delta,
          'event: message_stop\ndata: {"type":"message_stop"}\n\n',
        ]),
    );
    const result = await streamChat(options()).result;
    expect(result.usage).toMatchObject({ inputTokens: 25, outputTokens: 30, cachedInputTokens: 0 });
    expect(up.count).toBe(1);
  });

  test("inputTokens counts cache writes and cache reads too; cachedInputTokens is the reads (docs/protocols.md)", async () => {
    const usage = {
      input_tokens: 7,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 4000,
      output_tokens: 1,
    };
    const up = upstream(server, BASE, anthropicWire, (_n, req) => {
      const start = anthropicWire.start().map((b) =>
        b.replace(/"usage":\{[^}]*\}/, `"usage":${JSON.stringify(usage)}`)
      );
      return sseResponse(req, [...start, anthropicWire.text("x"), ...anthropicWire.end()]);
    });
    const result = await streamChat(options()).result;
    expect(result.usage).toMatchObject({
      inputTokens: 4307,
      cachedInputTokens: 4000,
      outputTokens: 12,
      totalTokens: 4319,
    });
    expect(result.usage?.raw).toMatchObject({ cache_creation_input_tokens: 300 });
    expect(up.count).toBe(1);
  });

  test.each([
    ["pause_turn", "stop"],
    ["model_context_window_exceeded", "length"],
    ["some_future_reason", "stop"],
  ])("stop reason %s is finishReason %s", async (reason, finishReason) => {
    const up = upstream(server, BASE, anthropicWire, (_n, req) => {
      const end = anthropicWire.end().map((b) => b.replace('"end_turn"', `"${reason}"`));
      return sseResponse(req, [...anthropicWire.start(), anthropicWire.text("x"), ...end]);
    });
    const result = await streamChat(options()).result;
    expect(result).toMatchObject({ finishReason, providerFinishReason: reason });
    expect(up.count).toBe(1);
  });
});
