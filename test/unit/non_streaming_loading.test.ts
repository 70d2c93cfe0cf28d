/**
 * The non-streaming fallback (src/non_streaming.ts) is not in what every app loads:
 * src/streaming_refused.ts loads it when a provider first refuses to stream. Here its `import()`
 * fails (vi.doMock, in a fresh module graph each case): the call ends with a typed error that
 * counts the refused request and the failed load, and no whole request is sent without it.
 */

import { beforeEach, expect, test, vi } from "vitest";

const seen: unknown[] = [];
/** A provider that refuses to stream, and answers a whole request with "Hello". */
const refusing: typeof fetch = async (input, init) => {
  const body = JSON.parse(await new Request(input, init).text());
  seen.push(body.stream);
  if (body.stream === true) {
    return Response.json({ error: { message: "Streaming is not supported", param: "stream" } }, {
      status: 400,
    });
  }
  return Response.json({
    choices: [{
      index: 0,
      message: { role: "assistant", content: "Hello" },
      finish_reason: "stop",
    }],
  });
};

beforeEach(() => {
  vi.resetModules(); // a fresh module graph: the fallback is not loaded yet
  vi.doUnmock("../../src/non_streaming.ts");
  seen.length = 0;
});

async function call(): Promise<unknown> {
  const { streamChat } = await import("../../src/client/stream_chat.ts");
  return await streamChat({
    baseURL: "https://provider.test/v1",
    body: { model: "m", messages: [{ role: "user", content: "hi" }] },
    fetch: refusing,
    maxRetries: 0,
  }).result.catch((error: unknown) => error);
}

test("loaded on the first refusal, the whole answer arrives", async () => {
  const result = await call() as { content: string; streamed: boolean; attempts: number };
  expect([result.content, result.streamed, result.attempts, seen]).toEqual([
    "Hello",
    false,
    2,
    [true, false],
  ]);
});

test("a fallback that cannot be loaded ends the call typed, counting its attempt; no whole request is sent", async () => {
  const failure = new TypeError("Failed to fetch dynamically imported module");
  // The load fails where a broken chunk would: as the module is taken into use.
  vi.doMock("../../src/non_streaming.ts", () => ({
    wholeAnswers: () => {
      throw failure;
    },
  }));
  const { isConnectionError } = await import("../../src/core/error_guards.ts");
  const error = await call() as Error & { attempts?: number };
  expect(isConnectionError(error)).toBe(true);
  expect(error.cause).toBe(failure);
  expect([error.attempts, seen]).toEqual([2, [true]]);
});

// Last: its import never settles (nothing of it can reach a later test's module graph).
test("a fallback whose load hangs: past headersMs the call ends typed; no whole request is sent", async () => {
  vi.doMock("../../src/non_streaming.ts", () => new Promise(() => {}));
  const { streamChat } = await import("../../src/client/stream_chat.ts");
  const { isConnectionError } = await import("../../src/core/error_guards.ts");
  const started = performance.now();
  const error = await streamChat({
    baseURL: "https://provider.test/v1",
    body: { model: "m", messages: [{ role: "user", content: "hi" }] },
    fetch: refusing,
    maxRetries: 0,
    timeouts: { headersMs: 50 },
  }).result.catch((e: unknown) => e) as Error & { attempts?: number };
  expect(isConnectionError(error)).toBe(true);
  expect([error.attempts, seen]).toEqual([2, [true]]);
  expect(performance.now() - started).toBeLessThan(5_000);
});
