import { describe, expect, test } from "vitest";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import { BASE_URL, sseReply, useMockUpstream } from "../support/msw.ts";
import { openAIText } from "../support/sse.ts";

const upstream = useMockUpstream();
const BODY = { model: "gpt-test", messages: [{ role: "user", content: "Hi" }] };

function options(extra: Record<string, unknown> = {}): StreamChatOptions {
  return { baseURL: BASE_URL, body: BODY, ...extra } as StreamChatOptions;
}

describe("bad options throw at once, naming the option and its value, and send nothing", () => {
  const cases: Array<[string, () => unknown, ErrorConstructor, RegExp]> = [
    [
      "no options",
      () => streamChat(undefined as never),
      TypeError,
      /options object, got undefined/,
    ],
    [
      "a relative baseURL",
      () => streamChat(options({ baseURL: "api/v1" })),
      TypeError,
      /`baseURL`.*api\/v1/,
    ],
    [
      "a missing baseURL",
      () => streamChat(options({ baseURL: undefined })),
      TypeError,
      /`baseURL`/,
    ],
    ["a missing body", () => streamChat(options({ body: undefined })), TypeError, /`body`/],
    ["an array body", () => streamChat(options({ body: [] })), TypeError, /`body`/],
    [
      "body.stream false",
      () => streamChat(options({ body: { ...BODY, stream: false } })),
      TypeError,
      /`body.stream`/,
    ],
    ["a non-string apiKey", () => streamChat(options({ apiKey: 42 })), TypeError, /`apiKey`/],
    [
      "a signal that is not an AbortSignal",
      () => streamChat(options({ signal: {} })),
      TypeError,
      /`signal`/,
    ],
    [
      "a negative maxRetries",
      () => streamChat(options({ maxRetries: -1 })),
      RangeError,
      /`maxRetries`.*-1/,
    ],
    [
      "a fractional maxRetries",
      () => streamChat(options({ maxRetries: 1.5 })),
      RangeError,
      /`maxRetries`.*1\.5/,
    ],
    [
      "a negative initialDelayMs",
      () => streamChat(options({ retry: { initialDelayMs: -5 } })),
      RangeError,
      /`retry.initialDelayMs`.*-5/,
    ],
    [
      "a NaN maxDelayMs",
      () => streamChat(options({ retry: { maxDelayMs: Number.NaN } })),
      RangeError,
      /`retry.maxDelayMs`.*NaN/,
    ],
    [
      "a string maxRetryAfterMs",
      () => streamChat(options({ retry: { maxRetryAfterMs: "9" } })),
      RangeError,
      /`retry.maxRetryAfterMs`/,
    ],
    [
      "a zero headersMs",
      () => streamChat(options({ timeouts: { headersMs: 0 } })),
      RangeError,
      /`timeouts.headersMs`.*0/,
    ],
    [
      "a negative firstEventMs",
      () => streamChat(options({ timeouts: { firstEventMs: -1 } })),
      RangeError,
      /`timeouts.firstEventMs`/,
    ],
    [
      "a NaN idleMs",
      () => streamChat(options({ timeouts: { idleMs: Number.NaN } })),
      RangeError,
      /`timeouts.idleMs`/,
    ],
    [
      "a negative totalMs",
      () => streamChat(options({ timeouts: { totalMs: -1 } })),
      RangeError,
      /`timeouts.totalMs`/,
    ],
    [
      "a zero maxEventBytes",
      () => streamChat(options({ maxEventBytes: 0 })),
      RangeError,
      /`maxEventBytes`/,
    ],
    [
      "an unknown onPartial",
      () => streamChat(options({ onPartial: "explode" })),
      TypeError,
      /`onPartial`.*explode/,
    ],
    [
      "an unknown protocol",
      () => streamChat(options({ protocol: "grpc" })),
      TypeError,
      /`protocol` must be one of openai-chat, .*got grpc/,
    ],
    [
      "a fetch that is not a function",
      () => streamChat(options({ fetch: 42 })),
      TypeError,
      /`fetch`/,
    ],
    [
      "retry that is not an object",
      () => streamChat(options({ retry: 5 })),
      TypeError,
      /`retry` must be an object, got 5/,
    ],
    [
      "a fallback entry that is not an object",
      () => streamChat(options({ fallbacks: [null] })),
      TypeError,
      /`fallbacks\[0\]` must be an object, got null/,
    ],
    [
      "fallbacks that are not an array",
      () => streamChat(options({ fallbacks: {} })),
      TypeError,
      /`fallbacks`/,
    ],
  ];

  test.each(cases)("%s", (_, call, type, message) => {
    upstream.reply(sseReply(openAIText(["ok"])));
    expect(call).toThrow(type);
    expect(call).toThrow(message);
    expect(upstream.count).toBe(0);
  });
});

describe("good options", () => {
  test("Headers instances, Infinity timeouts and zero delays are accepted", async () => {
    upstream.reply(sseReply(openAIText(["ok"])));
    const result = await streamChat(options({
      headers: new Headers({ "x-extra": "1" }),
      retry: { initialDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 },
      timeouts: {
        headersMs: Infinity,
        firstEventMs: Infinity,
        idleMs: Infinity,
        totalMs: Infinity,
      },
      maxRetries: 0,
    })).result;
    expect(result.content).toBe("ok");
    expect(upstream.requests[0]!.headers.get("x-extra")).toBe("1");
    expect(upstream.count).toBe(1);
  });

  test("the default fetch is globalThis.fetch (here intercepted by the mock server)", async () => {
    upstream.reply(sseReply(openAIText(["ok"])));
    expect((await streamChat(options()).result).content).toBe("ok");
    expect(upstream.count).toBe(1);
  });

  test("an injected fetch is called unbound with the URL and a POST init", async () => {
    const seen: Array<{ self: unknown; url: string; init: RequestInit | undefined }> = [];
    const fetchFn = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      seen.push({ self: this, url: String(input), init });
      return Promise.resolve(
        new Response(openAIText(["ok"]), { headers: { "content-type": "text/event-stream" } }),
      );
    } as typeof fetch;
    const result = await streamChat(options({ fetch: fetchFn })).result;
    expect(result.content).toBe("ok");
    expect(seen).toHaveLength(1);
    expect(seen[0]!.self).toBeUndefined();
    expect(seen[0]!.url).toBe(`${BASE_URL}/chat/completions`);
    expect(seen[0]!.init?.method).toBe("POST");
    expect(seen[0]!.init?.signal).toBeInstanceOf(AbortSignal);
    expect(upstream.count).toBe(0);
  });
});
