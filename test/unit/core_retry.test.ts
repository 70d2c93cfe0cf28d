import { describe, expect, test } from "vitest";
import {
  APIStatusError,
  ConnectionError,
  PartialStreamError,
  UpstreamStreamError,
} from "../../src/errors.ts";
import { streamChat } from "../../src/stream_chat.ts";
import type { StreamChatOptions } from "../../src/types.ts";
import {
  BASE_URL,
  jsonReply,
  networkError,
  type Reply,
  sseReply,
  textReply,
  useMockUpstream,
} from "../support/msw.ts";
import { chunk, collect, ofType, openAIText, sse } from "../support/sse.ts";

const upstream = useMockUpstream();
const BODY = { model: "gpt-test", messages: [{ role: "user", content: "Hi" }] };
const OK = sseReply(openAIText(["o", "k"]));

function options(extra: Partial<StreamChatOptions> = {}): StreamChatOptions {
  return { baseURL: BASE_URL, body: BODY, retry: { initialDelayMs: 1, maxDelayMs: 2 }, ...extra };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

/** Runs a call that must fail, by iteration, and returns its error and events. */
async function failure(extra: Partial<StreamChatOptions> = {}) {
  const { events, error, result } = await collect(streamChat(options(extra)));
  expect(result).toBeUndefined();
  return { events, error: error as Error & { attempts?: number } };
}

const errorBody = (message: string, type = "server_error", code: string | null = null) => ({
  error: { message, type, param: null, code },
});

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

describe("delays", () => {
  test("retry events carry the attempt about to start and a jittered delay within bounds", async () => {
    upstream.reply(networkError, networkError, OK);
    const { events, result } = await collect(
      streamChat(options({ retry: { initialDelayMs: 4, maxDelayMs: 10 } })),
    );
    const retries = ofType(events, "retry");
    expect(retries.map((r) => r.attempt)).toEqual([2, 3]);
    // Retry n waits within [initial, min(max, initial * 2^n)].
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(4);
    expect(retries[0]!.delayMs).toBeLessThanOrEqual(8);
    expect(retries[1]!.delayMs).toBeGreaterThanOrEqual(4);
    expect(retries[1]!.delayMs).toBeLessThanOrEqual(10);
    for (const retry of retries) expect(retry.error).toBeInstanceOf(ConnectionError);
    expect(result?.attempts).toBe(3);
    expect(upstream.count).toBe(3);
  });

  test("open events: one per attempt that got a response, with status and headers", async () => {
    upstream.reply(
      sseReply(openAIText([], { finish: null, done: false }), { headers: { "x-attempt": "1" } }),
      sseReply(openAIText(["ok"]), { headers: { "x-attempt": "2" } }),
    );
    const { events } = await collect(streamChat(options()));
    const opens = ofType(events, "open");
    expect(opens.map((o) => [o.attempt, o.status, o.headers["x-attempt"]])).toEqual([
      [1, 200, "1"],
      [2, 200, "2"],
    ]);
    expect(opens[0]!.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(events.map((e) => e.type)).toEqual(["open", "retry", "open", "text", "finish"]);
    expect(upstream.count).toBe(2);
  });

  test("retry-after-ms wins over the backoff and is waited in full", async () => {
    upstream.reply(
      jsonReply(429, errorBody("slow down", "rate_limit_error"), { "retry-after-ms": "60" }),
      OK,
    );
    const started: number[] = [];
    const { events, result } = await collect(
      streamChat(options({
        retry: { initialDelayMs: 0, maxDelayMs: 0 },
        fetch: (input, init) => {
          started.push(performance.now());
          return fetch(input, init);
        },
      })),
    );
    expect(ofType(events, "retry")[0]?.delayMs).toBe(60);
    expect(started[1]! - started[0]!).toBeGreaterThanOrEqual(59);
    expect(result?.content).toBe("ok");
    expect(upstream.count).toBe(2);
  });

  test("Retry-After in seconds sets the delay (abort at the retry event: no wait, one request)", async () => {
    upstream.reply(jsonReply(503, errorBody("busy"), { "retry-after": "2" }), OK);
    const controller = new AbortController();
    const { events, error } = await collect(
      streamChat(options({ signal: controller.signal })),
      (event) => event.type === "retry" && controller.abort(),
    );
    expect(ofType(events, "retry")[0]?.delayMs).toBe(2000);
    expect(error?.constructor.name).toBe("InterruptedError");
    expect(upstream.count).toBe(1);
  });

  test.each([
    ["a year behind", -365 * 86_400_000],
    ["a year ahead", 365 * 86_400_000],
  ])(
    "Retry-After as an HTTP date is measured against the response's Date header (server clock %s)",
    async (_, skew) => {
      const serverNow = Math.floor((Date.now() + skew) / 1000) * 1000;
      const headers = {
        date: new Date(serverNow).toUTCString(),
        "retry-after": new Date(serverNow + 3000).toUTCString(),
      };
      upstream.reply(jsonReply(503, errorBody("busy"), headers), OK);
      const controller = new AbortController();
      const { events } = await collect(
        streamChat(options({ signal: controller.signal })),
        (event) => event.type === "retry" && controller.abort(),
      );
      // Against the local clock this would be 0 (behind) or a year (ahead, so no retry at all).
      expect(ofType(events, "retry")[0]?.delayMs).toBe(3000);
      expect(upstream.count).toBe(1);
    },
  );

  test("a Retry-After longer than retry.maxRetryAfterMs fails at once with the server's error", async () => {
    upstream.reply(jsonReply(503, errorBody("come back tomorrow"), { "retry-after": "86400" }), OK);
    const started = Date.now();
    const { events, error } = await failure();
    expect(Date.now() - started).toBeLessThan(1000);
    expect((error as APIStatusError).status).toBe(503);
    expect(error.attempts).toBe(1);
    expect(ofType(events, "retry")).toEqual([]);
    expect(upstream.count).toBe(1);
  });

  test("a Retry-After that would overrun totalMs fails at once with the last error, not a timeout", async () => {
    upstream.reply(jsonReply(503, errorBody("busy"), { "retry-after": "30" }), OK);
    const started = Date.now();
    const { error } = await failure({ timeouts: { totalMs: 5_000 } });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(APIStatusError);
    expect(error.attempts).toBe(1);
    expect(upstream.count).toBe(1);
  });

  test("a backoff that would overrun totalMs fails at once with the last error", async () => {
    upstream.reply(networkError, OK);
    const started = Date.now();
    const { error } = await failure({
      retry: { initialDelayMs: 10_000, maxDelayMs: 10_000 },
      timeouts: { totalMs: 3_000 },
    });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.attempts).toBe(1);
    expect(upstream.count).toBe(1);
  });
});

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
    expect(partial.finishReason).toBe("length");
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
    expect(ofType(events, "retry")[0]?.error.message).toMatch(/terminal event/);
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
