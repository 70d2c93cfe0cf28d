import { describe, expect, test } from "vitest";
import { APIStatusError, ConnectionError } from "../../src/core/error_classes.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import { jsonReply, networkError, type Reply, textReply, useMockUpstream } from "../support/msw.ts";
import { collect, ofType } from "../support/sse.ts";
import { errorBody, failure, OK, options, rejection } from "../support/chat.ts";

const upstream = useMockUpstream();

describe("status rules", () => {
  const retryable = [
    408,
    409,
    429,
    500,
    502,
    503,
    504,
    520,
    521,
    522,
    523,
    524,
    525,
    526,
    527,
    528,
    529,
  ];
  test.each(retryable)(
    "HTTP %i is retried; the retry event carries the status error",
    async (status) => {
      upstream.reply(jsonReply(status, errorBody("try later")), OK);
      const { events, result } = await collect(streamChat(options()));
      expect(result?.content).toBe("ok");
      expect(result?.attempts).toBe(2);
      const [retry] = ofType(events, "retry");
      expect(retry?.attempt).toBe(2);
      expect(retry?.error).toBeInstanceOf(APIStatusError);
      expect((retry?.error as APIStatusError).status).toBe(status);
      expect(upstream.count).toBe(2);
    },
  );

  test.each([400, 401, 403, 404, 413, 422])(
    "HTTP %i is not retried: APIStatusError with the provider's error body",
    async (status) => {
      const body = errorBody(`status ${status}`, "invalid_request_error", "some_code");
      upstream.reply(jsonReply(status, body, { "x-request-id": "req_1" }), OK);
      const { events, error } = await failure();
      expect(error).toBeInstanceOf(APIStatusError);
      const statusError = error as APIStatusError;
      expect(statusError.name).toBe("APIStatusError");
      expect(statusError.status).toBe(status);
      expect(statusError.body).toEqual(body);
      expect(statusError.headers["x-request-id"]).toBe("req_1");
      expect(statusError.message).toContain(`status ${status}`);
      expect(statusError.attempts).toBe(1);
      expect(ofType(events, "retry")).toEqual([]);
      expect(upstream.count).toBe(1);
    },
  );

  test("a text error body is kept as text, capped at 64 KiB", async () => {
    upstream.reply(textReply(400, "x".repeat(100 * 1024)));
    const { error } = await failure();
    expect((error as APIStatusError).body).toBe("x".repeat(64 * 1024));
    expect(upstream.count).toBe(1);
  });

  test("a 429 whose quota is exhausted (insufficient_quota) is not retried", async () => {
    const body = errorBody(
      "You exceeded your current quota.",
      "insufficient_quota",
      "insufficient_quota",
    );
    upstream.reply(jsonReply(429, body), OK);
    const { error } = await failure();
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).body).toEqual(body);
    expect(upstream.count).toBe(1);
  });

  test("a 429 for an Anthropic spend limit is not retried", async () => {
    const body = {
      type: "error",
      error: {
        type: "rate_limit_error",
        message: "You have reached your specified API usage limits.",
      },
    };
    upstream.reply(jsonReply(429, body), OK);
    const { error } = await failure();
    expect((error as APIStatusError).status).toBe(429);
    expect(upstream.count).toBe(1);
  });

  test("an ordinary 429 rate limit is retried", async () => {
    upstream.reply(jsonReply(429, errorBody("Rate limit reached", "rate_limit_exceeded")), OK);
    expect((await streamChat(options()).result).content).toBe("ok");
    expect(upstream.count).toBe(2);
  });

  test("x-should-retry: true retries a status that would not be", async () => {
    upstream.reply(jsonReply(400, errorBody("flaky"), { "x-should-retry": "true" }), OK);
    expect((await streamChat(options()).result).attempts).toBe(2);
    expect(upstream.count).toBe(2);
  });

  test("x-should-retry: false stops a status that would be retried", async () => {
    upstream.reply(jsonReply(503, errorBody("down"), { "x-should-retry": "false" }), OK);
    const { error } = await failure();
    expect((error as APIStatusError).status).toBe(503);
    expect(upstream.count).toBe(1);
  });

  test("retries run out: the last attempt's error is thrown with the attempt count", async () => {
    let n = 0;
    const numbered: Reply = () =>
      new Response(JSON.stringify(errorBody(`failure ${++n}`)), {
        status: 503,
        headers: { "content-type": "application/json" },
      });
    upstream.reply(numbered);
    const { events, error } = await failure();
    expect(error).toBeInstanceOf(APIStatusError);
    expect(error.message).toContain("failure 3");
    expect(error.attempts).toBe(3);
    expect(ofType(events, "retry").map((e) => e.attempt)).toEqual([2, 3]);
    expect(upstream.count).toBe(3);
  });

  test("maxRetries: 0 makes exactly one request", async () => {
    upstream.reply(networkError, OK);
    const error = await rejection(streamChat(options({ maxRetries: 0 })).result);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).attempts).toBe(1);
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(upstream.count).toBe(1);
  });

  test("maxRetries defaults to 2: three attempts", async () => {
    upstream.reply(networkError);
    const error = await rejection(streamChat(options()).result);
    expect((error as ConnectionError).attempts).toBe(3);
    expect(upstream.count).toBe(3);
  });
});
