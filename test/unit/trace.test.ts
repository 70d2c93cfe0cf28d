/**
 * `result.trace` and an ending error's `trace`: one entry per upstream request, with its target,
 * its times, its status or error kind, and the wait before it; never a key.
 */

import { describe, expect, test } from "vitest";
import {
  InterruptedError,
  isConnectionError,
  isPartialStreamError,
  isTimeoutError,
  streamChat,
  type TraceEntry,
} from "../../src/index.ts";
import { errorBody, OK, options, rejection } from "../support/chat.ts";
import {
  BASE_URL,
  jsonReply,
  networkError,
  noAnswer,
  sseReply,
  useMockUpstream,
} from "../support/msw.ts";
import { chunk, sse } from "../support/sse.ts";

const upstream = useMockUpstream();
const TARGET = { index: 0, baseURL: BASE_URL, protocol: "openai-chat", model: "gpt-test" };

/** Every entry closed, in order, none overlapping the next. */
function expectOrdered(trace: readonly TraceEntry[]): void {
  let last = 0;
  for (const entry of trace) {
    expect(entry.start).toBeGreaterThanOrEqual(last);
    expect(entry.end).toBeGreaterThanOrEqual(entry.start);
    last = entry.end;
  }
}

describe("result.trace", () => {
  test("a 503 with retry-after-ms, then a 200: two entries, the second after the server's wait", async () => {
    upstream.reply(jsonReply(503, errorBody("overloaded"), { "retry-after-ms": "30" }), OK);
    const result = await streamChat(options({ apiKey: "sk-trace-secret" })).result;
    expect(upstream.count).toBe(2);
    const trace = result.trace!;
    expect(trace).toHaveLength(2);
    expect(trace[0]).toEqual({
      target: TARGET,
      start: expect.any(Number),
      end: expect.any(Number),
      status: 503,
      error: "APIStatusError",
      waitMs: 0,
    });
    expect(trace[1]).toEqual({
      target: TARGET,
      start: expect.any(Number),
      end: expect.any(Number),
      status: 200,
      waitMs: 30,
    });
    expectOrdered(trace);
    // Timers may fire a millisecond early; the wait is between the two entries.
    expect(trace[1]!.start - trace[0]!.end).toBeGreaterThanOrEqual(29);
    expect(JSON.stringify(trace)).not.toContain("sk-trace-secret");
  });

  test("a single request's trace: one entry, no error, no wait", async () => {
    upstream.reply(OK);
    const result = await streamChat(options()).result;
    expect(upstream.count).toBe(1);
    expect(result.trace).toEqual([
      {
        target: TARGET,
        start: expect.any(Number),
        end: expect.any(Number),
        status: 200,
        waitMs: 0,
      },
    ]);
  });

  test('onPartial "return": the partial result has the trace of the request that broke off', async () => {
    upstream.reply(sseReply([sse(chunk({ content: "par" }))]));
    const result = await streamChat(options({ onPartial: "return" })).result;
    expect(upstream.count).toBe(1);
    expect(result.partial).toBe(true);
    expect(result.trace).toEqual([
      expect.objectContaining({ status: 200, error: "ConnectionError" }),
    ]);
  });
});

describe("an ending error's trace", () => {
  test("retries used up: every request, each with its error kind and no status", async () => {
    upstream.reply(networkError);
    const error = await rejection(streamChat(options({ maxRetries: 1, apiKey: "sk-x" })).result);
    expect(isConnectionError(error)).toBe(true);
    expect(upstream.count).toBe(2);
    const trace = (error as { trace: TraceEntry[] }).trace;
    expect(trace.map((t) => [t.error, t.status, t.target.index])).toEqual([
      ["ConnectionError", undefined, 0],
      ["ConnectionError", undefined, 0],
    ]);
    expect(trace[0]!.waitMs).toBe(0);
    expect(trace[1]!.waitMs).toBeGreaterThan(0);
    expectOrdered(trace);
  });

  test("a headers timeout is recorded as a TimeoutError entry", async () => {
    upstream.reply(noAnswer);
    const error = await rejection(
      streamChat(options({ maxRetries: 0, timeouts: { headersMs: 20 } })).result,
    );
    expect(isTimeoutError(error)).toBe(true);
    expect(upstream.count).toBe(1);
    expect((error as { trace: TraceEntry[] }).trace).toEqual([
      {
        target: TARGET,
        start: expect.any(Number),
        end: expect.any(Number),
        error: "TimeoutError",
        waitMs: 0,
      },
    ]);
  });

  test("an abort mid-request: the entry is closed when the InterruptedError arrives", async () => {
    upstream.reply(noAnswer);
    const controller = new AbortController();
    const stream = streamChat(options({ signal: controller.signal }));
    const result = stream.result;
    await upstream.entered(1);
    controller.abort();
    const error = await rejection(result);
    expect(error).toBeInstanceOf(InterruptedError);
    expect(upstream.count).toBe(1);
    const [entry] = (error as InterruptedError).trace!;
    expect(entry!.end).toBeGreaterThan(0);
    expect(entry!.error).toBe("InterruptedError");
  });

  test("a PartialStreamError carries the trace", async () => {
    upstream.reply(sseReply([sse(chunk({ content: "par" }))]));
    const error = await rejection(streamChat(options()).result);
    expect(isPartialStreamError(error)).toBe(true);
    expect(upstream.count).toBe(1);
    expect((error as { trace?: TraceEntry[] }).trace).toHaveLength(1);
  });
});
