import { describe, expect, test } from "vitest";
import {
  APIStatusError,
  ConnectionError,
  StreamProtocolError,
  UpstreamStreamError,
} from "../../src/core/error_classes.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import { jsonReply, type Reply, sseReply, textReply, useMockUpstream } from "../support/msw.ts";
import { chunk, collect, DONE, ofType, openAIText, splitBytes, sse } from "../support/sse.ts";
import { OK, options } from "../support/chat.ts";
import { fixture } from "./protocol_replay.ts";

const upstream = useMockUpstream();

async function outcome(reply: Reply, extra: Partial<StreamChatOptions> = {}) {
  upstream.reply(reply, OK);
  return await collect(streamChat(options(extra)));
}

describe("malformed streams fail with StreamProtocolError and are not retried", () => {
  test("a data line that is not JSON", async () => {
    const { error } = await outcome(
      sseReply(sse(chunk({ role: "assistant" })) + "data: {not json\n\n"),
    );
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect((error as Error).message).toContain("{not json");
    expect((error as StreamProtocolError).attempts).toBe(1);
    expect(upstream.count).toBe(1);
  });

  test("a data line that is JSON but not an object", async () => {
    const { error } = await outcome(sseReply("data: 42\n\n"));
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect(upstream.count).toBe(1);
  });

  test("a data line that is a JSON array (of chunks) is refused, not skipped", async () => {
    // A batching gateway's `[chunk, chunk]` held the answer; skipped, the call "completed"
    // with empty content.
    const { error } = await outcome(
      sseReply(`data: ${JSON.stringify([chunk({ content: "Hi" })])}\n\n${DONE}`),
    );
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect((error as Error).message).toContain("not a JSON object");
    expect(upstream.count).toBe(1);
  });

  test("an HTML page with status 200 is never an empty success", async () => {
    const html = "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>";
    const { events, error } = await outcome(textReply(200, html, "text/html; charset=utf-8"));
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect((error as Error).message).toMatch(/text\/html/);
    expect((error as Error).message).toContain("502 Bad Gateway");
    expect(ofType(events, "open")).toEqual([]);
    expect(upstream.count).toBe(1);
  });

  test("a 200 without a content type", async () => {
    const { error } = await outcome(() => new Response("data: [DONE]\n\n", { status: 200 }));
    // A body with no declared type is not trusted as SSE (fetch would label a string text/plain).
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect(upstream.count).toBe(1);
  });

  test("a 200 JSON body with an error maps to the typed error it describes", async () => {
    const body = {
      error: { message: "Invalid model", type: "invalid_request_error", code: "model_not_found" },
    };
    const { error } = await outcome(jsonReply(200, body));
    expect(error).toBeInstanceOf(UpstreamStreamError);
    expect((error as UpstreamStreamError).data).toEqual(body);
    expect((error as UpstreamStreamError).errorType).toBe("invalid_request_error");
    expect((error as UpstreamStreamError).retryable).toBe(false);
    expect(upstream.count).toBe(1);
  });

  test("a 200 JSON body without an error is still not a stream", async () => {
    const { error } = await outcome(jsonReply(200, { choices: [] }));
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect(upstream.count).toBe(1);
  });

  test("an event larger than maxEventBytes, split across chunks", async () => {
    const big = sse(chunk({ content: "x".repeat(5000) }));
    const { error } = await outcome(sseReply(splitBytes(big, [1000, 2000, 3000, 4000])), {
      maxEventBytes: 2048,
    });
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect((error as Error).message).toMatch(/2048/);
    expect(upstream.count).toBe(1);
  });

  test("an event larger than maxEventBytes, arriving whole in one chunk", async () => {
    const big = sse(chunk({ content: "x".repeat(5000) })) + DONE;
    const { error } = await outcome(sseReply(big), { maxEventBytes: 2048 });
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect(upstream.count).toBe(1);
  });

  test("events within maxEventBytes pass", async () => {
    const { result } = await outcome(sseReply(openAIText(["x".repeat(1000)])), {
      maxEventBytes: 2048,
    });
    expect(result?.content).toBe("x".repeat(1000));
    expect(upstream.count).toBe(1);
  });
});

describe("in-stream error events", () => {
  test("`event: error` with a JSON error object", async () => {
    const { error } = await outcome(
      sseReply(sse({ error: { message: "bad request", type: "invalid_request_error" } }, "error")),
    );
    expect(error).toBeInstanceOf(UpstreamStreamError);
    expect((error as UpstreamStreamError).retryable).toBe(false);
    expect(upstream.count).toBe(1);
  });

  test("`event: error` with a plain-text payload is an upstream error, not a protocol error", async () => {
    upstream.reply(sseReply("event: error\ndata: upstream overloaded, try again\n\n"), OK);
    const { events, result } = await collect(streamChat(options()));
    const retry = ofType(events, "retry")[0];
    expect(retry?.error).toBeInstanceOf(UpstreamStreamError);
    expect(result?.content).toBe("ok");
    expect(upstream.count).toBe(2);
  });
});

describe("framing", () => {
  test("a stream split into one-byte chunks", async () => {
    const text = fixture("openai_text.sse");
    const bytes = new TextEncoder().encode(text);
    const cuts = Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
    upstream.reply(sseReply(splitBytes(bytes, cuts)));
    const { events, result } = await collect(streamChat(options()));
    expect(result?.content).toBe("Café 日本語 🦀 — done.");
    expect(ofType(events, "text")).toHaveLength(4);
    expect(upstream.requests[0]!.stream!.sent).toBe(bytes.length);
    expect(upstream.count).toBe(1);
  });

  test("CRLF line endings", async () => {
    const text = fixture("openai_tools.sse").replaceAll("\n", "\r\n");
    upstream.reply(sseReply(text));
    const { result } = await collect(streamChat(options()));
    expect(result?.toolCalls.map((c) => c.arguments)).toEqual([
      '{"city": "Oslo"}',
      '{"city": "Київ"}',
    ]);
    expect(upstream.count).toBe(1);
  });

  test("CR-only line endings", async () => {
    upstream.reply(sseReply(openAIText(["o", "k"]).replaceAll("\n", "\r")));
    const { result } = await collect(streamChat(options()));
    expect(result?.content).toBe("ok");
    expect(upstream.count).toBe(1);
  });

  test("a last event without its blank line, after finish_reason, still counts", async () => {
    upstream.reply(
      sseReply(sse(chunk({ content: "ok" })) + `data: ${JSON.stringify(chunk({}, "stop"))}`),
    );
    const { result } = await collect(streamChat(options()));
    expect(result?.content).toBe("ok");
    expect(result?.finishReason).toBe("stop");
    expect(upstream.count).toBe(1);
  });

  test("a body cut in the middle of an event before content is a cut connection: retried", async () => {
    upstream.reply(sseReply(sse(chunk({ role: "assistant" })) + 'data: {"id":"chatcmpl-te'), OK);
    const { events, result } = await collect(streamChat(options()));
    expect(ofType(events, "retry")[0]?.error).toBeInstanceOf(ConnectionError);
    expect(result?.content).toBe("ok");
    expect(upstream.count).toBe(2);
  });

  test("events after [DONE] are ignored", async () => {
    upstream.reply(
      sseReply([openAIText(["ok"]), sse(chunk({ content: " more" })), "data: {bad json\n\n"]),
    );
    const { events, result } = await collect(streamChat(options()));
    expect(result?.content).toBe("ok");
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["ok"]);
    expect(upstream.count).toBe(1);
  });

  test("SSE comments, ids, retry fields and unknown fields are not data", async () => {
    upstream.reply(
      sseReply(
        ": hello\n\nid: 7\nretry: 1000\nfoo: bar\n\nevent: message\n" +
          `data: ${JSON.stringify(chunk({ content: "ok" }, "stop"))}\n\n` + DONE,
      ),
    );
    const { result } = await collect(streamChat(options()));
    expect(result?.content).toBe("ok");
    expect(upstream.count).toBe(1);
  });

  test("a status error never reaches the SSE parser; its body is read and the error is typed", async () => {
    const { error } = await outcome(textReply(404, "<html>Not Found</html>", "text/html"));
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).body).toBe("<html>Not Found</html>");
    expect(upstream.count).toBe(1);
  });
});
