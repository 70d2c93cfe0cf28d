import { describe, expect, test } from "vitest";
import {
  ConnectionError,
  PartialStreamError,
  UpstreamStreamError,
} from "../../src/core/error_classes.ts";
import { CONNECTION_LOST } from "../../src/core/error_messages.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import { jsonReply, sseReply, useMockUpstream } from "../support/msw.ts";
import { chunk, collect, ofType, openAIText, sse } from "../support/sse.ts";
import { errorBody, failure, OK, options, rejection } from "../support/chat.ts";

const upstream = useMockUpstream();

describe("stream faults", () => {
  test("partial delivery then a drop: PartialStreamError with the partial, exactly one request", async () => {
    upstream.reply(
      sseReply([
        sse(chunk({ role: "assistant", content: "" })),
        sse(chunk({ content: "Hello" })),
        sse(chunk({ content: ", wor" })),
        { error: new Error("socket hang up") },
      ]),
      OK,
    );
    const { events, error } = await failure();
    expect(error).toBeInstanceOf(PartialStreamError);
    const partial = (error as PartialStreamError).partial;
    expect(partial.content).toBe("Hello, wor");
    expect(partial.finishReason).toBe("error");
    expect(partial.attempts).toBe(1);
    expect(error.cause).toBeInstanceOf(ConnectionError);
    expect(error.attempts).toBe(1);
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Hello", ", wor"]);
    expect(upstream.count).toBe(1);
  });

  test("partial delivery then a drop also fails for a result-only caller", async () => {
    upstream.reply(sseReply([sse(chunk({ content: "Hel" })), { error: new Error("reset") }]), OK);
    const error = await rejection(streamChat(options()).result);
    expect(error).toBeInstanceOf(PartialStreamError);
    expect((error as PartialStreamError).partial.content).toBe("Hel");
    expect(upstream.count).toBe(1);
  });

  test("a drop before any content is retried", async () => {
    upstream.reply(
      sseReply([sse(chunk({ role: "assistant", content: "" })), { error: new Error("reset") }]),
      OK,
    );
    const { events, result } = await collect(streamChat(options()));
    expect(result?.content).toBe("ok");
    expect(ofType(events, "retry")[0]?.error).toBeInstanceOf(ConnectionError);
    expect(upstream.count).toBe(2);
  });

  test("a body that ends without [DONE] and without finish_reason is truncated: retried", async () => {
    upstream.reply(sseReply(sse(chunk({ role: "assistant", content: "" }))), OK);
    const { events, result } = await collect(streamChat(options()));
    expect(result?.content).toBe("ok");
    // A clean end before the terminal event: a lost connection with no network error behind it.
    const retried = ofType(events, "retry")[0]?.error;
    expect(retried).toBeInstanceOf(ConnectionError);
    expect(retried?.message).toBe(CONNECTION_LOST);
    expect(retried?.cause).toBeUndefined();
    expect(upstream.count).toBe(2);
  });

  test("an empty body is never an empty success", async () => {
    upstream.reply(sseReply(""));
    const { error } = await failure();
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.attempts).toBe(3);
    expect(upstream.count).toBe(3);
  });

  test("content then an end without [DONE] or finish_reason: PartialStreamError, one request", async () => {
    upstream.reply(sseReply(openAIText(["Hel"], { finish: null, done: false })), OK);
    const { error } = await failure();
    expect(error).toBeInstanceOf(PartialStreamError);
    expect((error as PartialStreamError).partial.content).toBe("Hel");
    expect(upstream.count).toBe(1);
  });

  test("a finish_reason followed by the body's end (no [DONE]) is complete", async () => {
    upstream.reply(sseReply(openAIText(["ok"], { done: false })), OK);
    const result = await streamChat(options()).result;
    expect(result.content).toBe("ok");
    expect(result.finishReason).toBe("stop");
    expect(upstream.count).toBe(1);
  });

  test("an in-stream 'Network connection lost.' before content is retried", async () => {
    upstream.reply(
      sseReply([
        sse(chunk({ role: "assistant", content: "" })),
        ": OPENROUTER PROCESSING\n\n",
        sse({ error: { message: "Network connection lost.", code: 502 } }),
      ]),
      OK,
    );
    const { events, result } = await collect(streamChat(options()));
    expect(result?.content).toBe("ok");
    const error = ofType(events, "retry")[0]?.error as UpstreamStreamError;
    expect(error).toBeInstanceOf(UpstreamStreamError);
    expect(error.retryable).toBe(true);
    expect(error.data).toEqual({ error: { message: "Network connection lost.", code: 502 } });
    expect(upstream.count).toBe(2);
  });

  test("an in-stream error after content: PartialStreamError caused by the upstream error", async () => {
    upstream.reply(
      sseReply([
        sse(chunk({ content: "Hel" })),
        sse({ error: { message: "Network connection lost." } }),
      ]),
      OK,
    );
    const { error } = await failure();
    expect(error).toBeInstanceOf(PartialStreamError);
    expect(error.cause).toBeInstanceOf(UpstreamStreamError);
    expect((error as PartialStreamError).partial.content).toBe("Hel");
    expect(upstream.count).toBe(1);
  });

  test("an `event: error` carrying an overloaded error is retried", async () => {
    upstream.reply(
      sseReply(sse({ type: "overloaded_error", message: "Overloaded" }, "error")),
      OK,
    );
    const { events, result } = await collect(streamChat(options()));
    expect(result?.content).toBe("ok");
    const error = ofType(events, "retry")[0]?.error as UpstreamStreamError;
    expect(error.errorType).toBe("overloaded_error");
    expect(upstream.count).toBe(2);
  });

  test("an in-stream error that is not transient fails at once", async () => {
    upstream.reply(
      sseReply(sse({ error: { message: "Invalid prompt", type: "invalid_request_error" } })),
      OK,
    );
    const { error } = await failure();
    expect(error).toBeInstanceOf(UpstreamStreamError);
    expect((error as UpstreamStreamError).retryable).toBe(false);
    expect((error as UpstreamStreamError).errorType).toBe("invalid_request_error");
    expect(error.attempts).toBe(1);
    expect(upstream.count).toBe(1);
  });

  test("an in-stream insufficient_quota is not retried", async () => {
    upstream.reply(
      sseReply(
        sse({
          error: { message: "quota", type: "insufficient_quota", code: "insufficient_quota" },
        }),
      ),
      OK,
    );
    const { error } = await failure();
    expect((error as UpstreamStreamError).retryable).toBe(false);
    expect(upstream.count).toBe(1);
  });

  test("a 200 JSON error body maps to the typed error it describes, and is retried when transient", async () => {
    upstream.reply(jsonReply(200, errorBody("Rate limit exceeded", "rate_limit_error")), OK);
    const { events, result } = await collect(streamChat(options()));
    expect(result?.content).toBe("ok");
    expect(ofType(events, "retry")[0]?.error).toBeInstanceOf(UpstreamStreamError);
    expect(upstream.count).toBe(2);
  });

  test("rateLimit holds the successful response's x-ratelimit-* headers", async () => {
    upstream.reply(
      jsonReply(429, errorBody("slow"), { "x-ratelimit-remaining-requests": "0" }),
      sseReply(openAIText(["ok"]), {
        headers: {
          "x-ratelimit-limit-requests": "500",
          "x-ratelimit-remaining-tokens": "39000",
          "x-request-id": "req_2",
        },
      }),
    );
    const result = await streamChat(options()).result;
    expect(result.rateLimit).toEqual({
      "x-ratelimit-limit-requests": "500",
      "x-ratelimit-remaining-tokens": "39000",
    });
    expect(upstream.count).toBe(2);
  });

  test("no x-ratelimit-* headers: no rateLimit", async () => {
    upstream.reply(OK);
    expect((await streamChat(options()).result).rateLimit).toBeUndefined();
    expect(upstream.count).toBe(1);
  });
});
