import { describe, expect, test } from "vitest";
import { closestName } from "../../src/core/option_keys.ts";
import { createRetryBudget } from "../../src/core/retry_budget.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import { BASE_URL, sseReply, useMockUpstream } from "../support/msw.ts";
import { openAIText } from "../support/sse.ts";

const upstream = useMockUpstream();
const BODY = { model: "gpt-test", messages: [{ role: "user", content: "Hi" }] };

function options(extra: Record<string, unknown> = {}): StreamChatOptions {
  return { baseURL: BASE_URL, body: BODY, ...extra } as StreamChatOptions;
}

/** The TypeError `streamChat(options(extra))` throws; fails when it does not throw one. */
function thrown(extra: Record<string, unknown>): string {
  try {
    streamChat(options(extra));
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as Error).message;
  }
  throw new Error("streamChat accepted the options");
}

describe("a misspelt option is a TypeError naming it and the option it most likely means", () => {
  test.each([
    [
      { maxRetry: 3 },
      "stopstream: `maxRetry` is not a streamChat option; did you mean `maxRetries`?",
    ],
    [{ baseUrl: "https://x.test" }, "did you mean `baseURL`?"],
    [{ onpartial: "return" }, "did you mean `onPartial`?"],
    [{ timeout: { idleMs: 5 } }, "did you mean `timeouts`?"],
    [{ retries: 3 }, "did you mean `maxRetries`?"],
    [{ idleMs: 5_000 }, "`idleMs` is not a streamChat option; did you mean `timeouts.idleMs`?"],
    [
      { timeouts: { idle: 5_000 } },
      "`timeouts.idle` is not a streamChat option; did you mean `timeouts.idleMs`?",
    ],
    [{ retry: { maxDelay: 10 } }, "did you mean `retry.maxDelayMs`?"],
    [
      { fallbacks: [{ baseURL: "https://y.test", maxRetry: 1 }] },
      "`fallbacks[0].maxRetry` is not a streamChat option; did you mean `fallbacks[0].maxRetries`?",
    ],
    [
      { fallbacks: [{ timeouts: { totalMS: 1 } }] },
      "did you mean `fallbacks[0].timeouts.totalMs`?",
    ],
  ])("%j", (extra, message) => {
    upstream.reply(sseReply(openAIText(["ok"])));
    expect(thrown(extra)).toContain(message);
    expect(upstream.count).toBe(0);
  });

  test("with nothing close, the message lists the options instead of guessing", () => {
    expect(thrown({ frobnicate: true })).toBe(
      "stopstream: `frobnicate` is not a streamChat option; the options are baseURL, apiKey, " +
        "headers, body, protocol, signal, maxRetries, retry, timeouts, fetch, maxEventBytes, " +
        "fallbacks, onPartial, retryBudget",
    );
    expect(thrown({ timeouts: { soon: 1 } })).toBe(
      "stopstream: `timeouts.soon` is not a streamChat option; the options in `timeouts` are " +
        "headersMs, firstEventMs, idleMs, totalMs",
    );
  });

  test("an unknown key is refused even when its value is undefined", () => {
    expect(thrown({ maxRetry: undefined })).toMatch(/maxRetries/);
  });

  test("every documented option, with every nested one, is accepted", async () => {
    upstream.reply(sseReply(openAIText(["ok"])));
    const all: Required<StreamChatOptions> = {
      baseURL: BASE_URL,
      apiKey: "k",
      headers: {},
      body: BODY,
      protocol: "openai-chat",
      signal: new AbortController().signal,
      maxRetries: 0,
      retry: { initialDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 },
      timeouts: { headersMs: 1_000, firstEventMs: 1_000, idleMs: 1_000, totalMs: 5_000 },
      fetch: globalThis.fetch,
      maxEventBytes: 1024,
      fallbacks: [{ baseURL: "https://other.test/v1", maxRetries: 1, timeouts: { idleMs: 9 } }],
      onPartial: "return",
      retryBudget: createRetryBudget(),
    };
    expect((await streamChat(all).result).content).toBe("ok");
  });
});

describe("closestName", () => {
  test("finds case slips, swaps, parts and small typos; refuses far-fetched guesses", () => {
    const names = ["model", "json", "demo", "max-retries", "idle-timeout", "help"];
    expect(closestName("Model", names)).toBe("model");
    expect(closestName("modle", names)).toBe("model");
    expect(closestName("retries", names)).toBe("max-retries");
    expect(closestName("idle-timout", names)).toBe("idle-timeout");
    expect(closestName("bogus", names)).toBeUndefined();
    expect(closestName("x", names)).toBeUndefined();
    expect(closestName("jsn", names)).toBe("json");
  });
});
