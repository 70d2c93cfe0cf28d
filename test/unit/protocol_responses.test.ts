/**
 * The openai-responses protocol against recorded streams in the Responses API wire format.
 */

import { HttpResponse } from "msw";
import { describe, expect, test } from "vitest";
import {
  isConnectionError,
  isUpstreamStreamError,
  streamChat,
  type StreamChatOptions,
} from "../../src/index.ts";
import { useMswServer } from "../support/msw.ts";
import { responsesWire } from "./fixtures/responses_wire.ts";
import { chunkedResponse, expectSplitInvariant, fixture, replayer } from "./protocol_replay.ts";
import { collect, optionsFor, sseResponse, upstream } from "./protocol_wire.ts";

const server = useMswServer();

const BASE = "https://api.openai.test/v1";
const BODY = { model: "gpt-4.1", input: [{ role: "user", content: "Hello" }] };

const wireOptions = optionsFor(BASE, BODY);
const options = (extra: Partial<StreamChatOptions> = {}): StreamChatOptions =>
  wireOptions(responsesWire, extra);

const replay = replayer(server, BASE, responsesWire);

/** One SSE event of the Responses API, named after its `type`. */
const event = (data: Record<string, unknown>) =>
  `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

/** One stream that starts, then fails with a `response.failed` event; no retry. */
async function failedStream(payload: Record<string, unknown>) {
  const failed = `event: response.failed\ndata: ${
    JSON.stringify({ type: "response.failed", ...payload })
  }\n\n`;
  const up = upstream(
    server,
    BASE,
    responsesWire,
    (_n, req) => sseResponse(req, [...responsesWire.start(), failed]),
  );
  const error = await streamChat(options({ maxRetries: 0 })).result.catch((e: unknown) => e);
  return { up, error };
}

describe("openai-responses request", () => {
  test("posts to /responses with a bearer key and stream: true", async () => {
    const up = replay("responses_text.sse");
    await streamChat(options({ headers: { "openai-organization": "org-1" } })).result;
    expect(up.count).toBe(1);
    const headers = up.headers[0]!;
    expect(headers.get("authorization")).toBe("Bearer sk-test");
    expect(headers.get("openai-organization")).toBe("org-1");
    expect(headers.get("accept")).toBe("text/event-stream");
    expect(up.bodies[0]).toEqual({ ...BODY, stream: true });
  });
});

describe("openai-responses stream", () => {
  test("text: output_text deltas, cached and total usage, finish stop", async () => {
    const up = replay("responses_text.sse");
    const run = await collect(streamChat(options()));
    expect(run.text).toBe("Hi there! How can I help?");
    expect(run.events.filter((e) => e.type === "text")).toHaveLength(3);
    expect(run.result).toMatchObject({
      id: "resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654",
      model: "gpt-4.1-2025-04-14",
      content: "Hi there! How can I help?",
      finishReason: "stop",
      providerFinishReason: "completed",
      usage: {
        inputTokens: 1037,
        outputTokens: 11,
        totalTokens: 1048,
        cachedInputTokens: 1024,
        reasoningTokens: 0,
      },
    });
    expect(up.count).toBe(1);
  });

  test("reasoning summary deltas are reasoning, parts separated by a blank line", async () => {
    const up = replay("responses_reasoning.sse");
    const run = await collect(streamChat(options()));
    expect(run.result?.reasoning).toBe(
      "**Multiplying numbers**\n\nI need 27 times 453.\n\n**Checking the result**",
    );
    expect(run.result?.content).toBe("27 × 453 = 12,231");
    expect(run.result?.usage?.reasoningTokens).toBe(192);
    expect(up.count).toBe(1);
  });

  test("reasoning_text deltas (open-weight models) are reasoning too", async () => {
    const up = replay("responses_reasoning_text.sse");
    const result = await streamChat(options()).result;
    expect(result).toMatchObject({ reasoning: "User greets. Reply briefly.", content: "Hello!" });
    expect(up.count).toBe(1);
  });

  test("parallel function calls: id = call_id, deltas matched by output index", async () => {
    const up = replay("responses_tools.sse");
    const run = await collect(streamChat(options()));
    expect(run.result?.toolCalls).toEqual([
      {
        index: 0,
        id: "call_FBRVBS4jnDc3VU9ZYJE55pEF",
        name: "get_weather",
        arguments: '{"location":"Paris, France"}',
      },
      {
        index: 1,
        id: "call_Qm7qV3b9XyZk8f2LtN4hR1sW",
        name: "get_weather",
        arguments: '{"location":"Oslo, Norway"}',
      },
      // No deltas at all: the arguments come from output_item.done.
      { index: 2, id: "call_Zx1Yw2Vu3Ts4", name: "get_time", arguments: '{"tz":"UTC"}' },
    ]);
    expect(run.result).toMatchObject({ finishReason: "tool_calls", content: "" });
    expect(run.events.filter((e) => e.type === "tool-call")).toHaveLength(3);
    expect(up.count).toBe(1);
  });

  test("response.incomplete for max_output_tokens is a complete answer with finish length", async () => {
    const up = replay("responses_incomplete.sse");
    const result = await streamChat(options()).result;
    expect(result).toMatchObject({
      content: "Once upon a time, in a",
      finishReason: "length",
      providerFinishReason: "max_output_tokens",
      attempts: 1,
    });
    expect(result.partial).toBeUndefined();
    expect(up.count).toBe(1);
  });

  test.each([
    ['"content_filter"', "content_filter"],
    ['"some_future_reason"', "length"],
    ["null", "length"],
  ])("response.incomplete with reason %s ends with finishReason %s", async (reason, finish) => {
    const text = fixture("responses_incomplete.sse").replace(
      '"incomplete_details":{"reason":"max_output_tokens"}',
      reason === "null" ? '"incomplete_details":null' : `"incomplete_details":{"reason":${reason}}`,
    );
    const up = upstream(server, BASE, responsesWire, () => chunkedResponse(text));
    const result = await streamChat(options()).result;
    expect(result).toMatchObject({ finishReason: finish, content: "Once upon a time, in a" });
    expect(result.providerFinishReason).toBe(reason === "null" ? "incomplete" : JSON.parse(reason));
    expect(up.count).toBe(1);
  });

  test("refusal deltas become result.refusal, not text", async () => {
    const up = replay("responses_refusal.sse");
    const run = await collect(streamChat(options()));
    expect(run.result).toMatchObject({
      content: "",
      refusal: "I'm sorry, I can't help with that.",
      finishReason: "stop",
      providerFinishReason: "completed",
    });
    expect(run.events.filter((e) => e.type === "text")).toEqual([]);
    expect(up.count).toBe(1);
  });

  test("response.failed with server_error is transient: retried", async () => {
    const up = replay("responses_failed.sse", "responses_text.sse");
    const run = await collect(streamChat(options()));
    const retry = run.events.find((e) => e.type === "retry");
    expect(retry?.type === "retry" && isUpstreamStreamError(retry.error) && retry.error.errorType)
      .toBe("server_error");
    expect(run.result?.content).toBe("Hi there! How can I help?");
    expect(up.count).toBe(2);
  });

  test("an error event with rate_limit_exceeded is an UpstreamStreamError, transient", async () => {
    const up = replay("responses_error.sse");
    const error = await streamChat(options({ maxRetries: 0 })).result.catch((e: unknown) => e);
    expect(isUpstreamStreamError(error)).toBe(true);
    if (!isUpstreamStreamError(error)) return;
    expect([error.errorType, error.retryable]).toEqual(["rate_limit_exceeded", true]);
    expect(error.message).toMatch(/Rate limit reached/);
    expect(up.count).toBe(1);
  });

  test.each([
    ["server_error", true],
    ["rate_limit_exceeded", true],
    ["invalid_prompt", false],
    ["image_content_policy_violation", false],
  ])("response.failed with %s is retryable: %s", async (code, retryable) => {
    const { up, error } = await failedStream({
      response: { id: "resp_1", status: "failed", error: { code, message: "failed" } },
    });
    expect(isUpstreamStreamError(error) && [error.errorType, error.retryable]).toEqual([
      code,
      retryable,
    ]);
    expect(up.count).toBe(1);
  });

  test("response.failed with the error at the top level (compatible servers) keeps its code", async () => {
    const { up, error } = await failedStream({
      sequence_number: 3,
      error: { code: "server_error", message: "upstream failed" },
    });
    expect(
      isUpstreamStreamError(error) && [error.errorType, error.retryable, error.providerMessage],
    )
      .toEqual(["server_error", true, "upstream failed"]);
    expect(up.count).toBe(1);
  });

  test("a body that ends without a terminal event is a cut connection, retried", async () => {
    const text = fixture("responses_text.sse");
    const up = upstream(
      server,
      BASE,
      responsesWire,
      (n) =>
        chunkedResponse(
          n === 1 ? text.slice(0, text.indexOf("event: response.output_text.delta")) : text,
        ),
    );
    const run = await collect(streamChat(options()));
    const retry = run.events.find((e) => e.type === "retry");
    expect(retry?.type === "retry" && isConnectionError(retry.error)).toBe(true);
    expect(run.result?.content).toBe("Hi there! How can I help?");
    expect(up.count).toBe(2);
  });

  test("a server that sends no item events: output is response.completed's, text counted once", async () => {
    // Some compatible servers stream text deltas and put the items only in the final response.
    const output = [{
      type: "message",
      id: "msg_1",
      role: "assistant",
      content: [{ type: "output_text", text: "Hi there", annotations: [] }],
    }];
    upstream(server, BASE, responsesWire, (_n, req) =>
      sseResponse(req, [
        event({ type: "response.created", response: { id: "resp_1", model: "m", output: [] } }),
        event({ type: "response.output_text.delta", output_index: 0, delta: "Hi " }),
        event({ type: "response.output_text.delta", output_index: 0, delta: "there" }),
        event({
          type: "response.completed",
          response: { id: "resp_1", model: "m", status: "completed", output },
        }),
      ]));
    const result = await streamChat(options()).result;
    expect(result.content).toBe("Hi there");
    expect(result.output).toEqual(output);
    expect(result.finishReason).toBe("stop");
  });

  test("a server that streams nothing of the answer: response.completed's items are the answer", async () => {
    const output = [{
      type: "message",
      id: "msg_1",
      role: "assistant",
      content: [{ type: "output_text", text: "Hello", annotations: [] }],
    }, { type: "function_call", id: "fc_1", call_id: "call_1", name: "f", arguments: "{}" }];
    upstream(server, BASE, responsesWire, (_n, req) =>
      sseResponse(req, [
        event({ type: "response.created", response: { id: "resp_1", model: "m", output: [] } }),
        event({
          type: "response.completed",
          response: { id: "resp_1", model: "m", status: "completed", output },
        }),
      ]));
    const run = await collect(streamChat(options()));
    const result = run.result!;
    expect(result.content).toBe("Hello");
    expect(result.toolCalls).toEqual([
      expect.objectContaining({ id: "call_1", name: "f", arguments: "{}" }),
    ]);
    expect(result.finishReason).toBe("tool_calls");
    expect(result.output).toEqual(output);
    expect(run.events.filter((e) => e.type === "text").map((e) => e.text)).toEqual(["Hello"]);
  });

  test("an item kind stopstream does not know, with a call_id, that ends the response is a call of the caller's", async () => {
    // No provider sends one yet: a new kind of call must reach the agent loop, not be dropped.
    const program = { type: "program", id: "cm_1", call_id: "call_p", code: "run()" };
    const waiting = { type: "shiny_call", id: "sc_1", call_id: "call_s", arguments: { x: 1 } };
    upstream(server, BASE, responsesWire, (_n, req) =>
      sseResponse(req, [
        event({ type: "response.created", response: { id: "resp_1", model: "m", output: [] } }),
        event({ type: "response.output_item.added", output_index: 0, item: program }),
        event({ type: "response.output_item.done", output_index: 0, item: program }),
        event({ type: "response.output_item.added", output_index: 1, item: waiting }),
        event({ type: "response.output_item.done", output_index: 1, item: waiting }),
        event({
          type: "response.completed",
          response: { id: "resp_1", model: "m", status: "completed", output: [program, waiting] },
        }),
      ]));
    const run = await collect(streamChat(options()));
    const result = run.result!;
    // The unknown kind that does not end the response stays in `output` only.
    expect(result.toolCalls).toEqual([
      { index: 0, id: "call_s", name: "", arguments: '{"x":1}', type: "shiny" },
    ]);
    expect(result.finishReason).toBe("tool_calls");
    expect(result.output).toEqual([program, waiting]);
    expect(run.events).toContainEqual({
      type: "tool-call",
      index: 0,
      id: "call_s",
      name: "",
      toolType: "shiny",
    });
  });

  test("response.incomplete completes the output: an item never done, an item never sent, in the final order", async () => {
    const list = { type: "mcp_list_tools", id: "mcpl_1", server_label: "a", tools: [] };
    const listed = { ...list, tools: [{ name: "lookup" }] };
    const call = { type: "function_call", id: "fc_1", call_id: "call_1", name: "f", arguments: "" };
    const called = { ...call, arguments: '{"q":1}' };
    const reasoning = { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc" };
    const message = {
      type: "message",
      id: "msg_1",
      role: "assistant",
      content: [{ type: "output_text", text: "Partial", annotations: [] }],
    };
    upstream(server, BASE, responsesWire, (_n, req) =>
      sseResponse(req, [
        event({ type: "response.created", response: { id: "resp_1", model: "m", output: [] } }),
        event({ type: "response.output_item.added", output_index: 0, item: list }),
        event({ type: "response.output_item.added", output_index: 1, item: message }),
        event({ type: "response.output_text.delta", output_index: 1, delta: "Partial" }),
        event({ type: "response.output_item.done", output_index: 1, item: message }),
        event({ type: "response.output_item.added", output_index: 2, item: call }),
        event({
          type: "response.incomplete",
          response: {
            id: "resp_1",
            model: "m",
            status: "incomplete",
            incomplete_details: { reason: "max_output_tokens" },
            output: [listed, reasoning, message, called],
          },
        }),
      ]));
    const run = await collect(streamChat(options()));
    const result = run.result!;
    expect(result.output).toEqual([listed, reasoning, message, called]);
    expect(result.content).toBe("Partial");
    expect(result.toolCalls).toEqual([
      { index: 0, id: "call_1", name: "f", arguments: '{"q":1}' },
    ]);
    expect(result.finishReason).toBe("length");
  });

  test("a refusal that comes only with its item's done event counts once", async () => {
    const refusal = "I can't help with that.";
    const message = {
      type: "message",
      id: "msg_1",
      role: "assistant",
      content: [{ type: "refusal", refusal }],
    };
    upstream(server, BASE, responsesWire, (_n, req) =>
      sseResponse(req, [
        event({ type: "response.created", response: { id: "resp_1", model: "m", output: [] } }),
        event({ type: "response.output_item.done", output_index: 0, item: message }),
        event({
          type: "response.completed",
          response: { id: "resp_1", model: "m", status: "completed", output: [message] },
        }),
      ]));
    const result = await streamChat(options()).result;
    expect(result.refusal).toBe(refusal);
    expect(result.output).toEqual([message]);
  });

  test("a 200 JSON error body instead of a stream becomes an UpstreamStreamError", async () => {
    const up = upstream(
      server,
      BASE,
      responsesWire,
      () =>
        HttpResponse.json({
          error: { message: "The server is overloaded", type: "server_error", code: null },
        }),
    );
    const error = await streamChat(options({ maxRetries: 0 })).result.catch((e: unknown) => e);
    expect(isUpstreamStreamError(error) && [error.errorType, error.retryable]).toEqual([
      "server_error",
      true,
    ]);
    expect(up.count).toBe(1);
  });

  test("any split of the byte stream gives the same result", async () => {
    const names = ["responses_text.sse", "responses_reasoning.sse", "responses_tools.sse"];
    await expectSplitInvariant(server, BASE, responsesWire, names, 8000, options);
  });
});
