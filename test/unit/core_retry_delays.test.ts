import { describe, expect, test } from "vitest";
import { APIStatusError, ConnectionError } from "../../src/core/error_classes.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import { jsonReply, networkError, sseReply, useMockUpstream } from "../support/msw.ts";
import { collect, ofType, openAIText } from "../support/sse.ts";
import { errorBody, failure, OK, options } from "../support/chat.ts";

const upstream = useMockUpstream();

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
