/**
 * A stall before the first token (an upstream that accepts the request and sends nothing) with a
 * fallback left moves on to the fallback at once: waiting on the same upstream again would cost a
 * whole timeout more. Without a fallback it is retried as any retryable failure. Real loopback
 * servers: the stalled connection must be seen to close.
 */

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { streamChat } from "../../src/index.ts";
import { isTimeoutError } from "../../src/core/error_guards.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";

const encoder = new TextEncoder();
let stalled: NodeServer;
let healthy: NodeServer;

beforeAll(async () => {
  stalled = await startNodeServer((request) =>
    new Promise<Response>((_, reject) => {
      request.signal.addEventListener("abort", () => reject(new Error("client went away")));
    })
  );
  healthy = await startNodeServer(() =>
    Promise.resolve(
      new Response(
        encoder.encode(
          'data: {"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n' +
            'data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n' +
            "data: [DONE]\n\n",
        ),
        { headers: { "content-type": "text/event-stream" } },
      ),
    )
  );
});
afterAll(async () => {
  await Promise.all([stalled.close(), healthy.close()]);
});

const options = (fallbacks: Array<{ baseURL: string }>) => ({
  baseURL: `${stalled.url}/v1`,
  body: { model: "m", messages: [{ role: "user", content: "Hi" }] },
  timeouts: { headersMs: 100 },
  retry: { initialDelayMs: 1, maxDelayMs: 1 },
  fallbacks,
});

describe("a stall before the first token", () => {
  test("with a fallback left: one request to the stalled upstream, closed, then the fallback at once", async () => {
    const before = stalled.requests().length;
    const events: string[] = [];
    const stream = streamChat(options([{ baseURL: `${healthy.url}/v1` }]));
    for await (const event of stream) {
      if (event.type === "fallback") {
        expect(isTimeoutError(event.error) && event.error.phase).toBe("headers");
      }
      events.push(event.type);
    }
    const result = await stream.result;
    expect(result.content).toBe("Hi");
    expect(result.attempts).toBe(2);
    expect(events).not.toContain("retry");
    expect(events).toContain("fallback");
    expect(stalled.requests().length).toBe(before + 1);
    expect(await stalled.requests()[before]!.closed).toBe("aborted");
  });

  test("without one: retried on the same upstream, as before", async () => {
    const before = stalled.requests().length;
    const error = await streamChat({ ...options([]), maxRetries: 1 }).result.catch((e) => e);
    expect(isTimeoutError(error) && error.phase).toBe("headers");
    expect(stalled.requests().length).toBe(before + 2);
  });
});
