/**
 * Non-streaming relay requests keep the client's guarantees: nothing reaches the caller before
 * the whole answer exists (so a failure after part of it is retried and falls back), an early
 * failure keeps its status, and a slow answer is committed early and written to (spaces before
 * the JSON) so a caller who leaves is noticed.
 */

import { describe, expect, it } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import {
  chatBody,
  contentOf,
  demoRelay,
  fakeUpstream,
  parseSSE,
  postChat,
  sse,
  sseResponse,
} from "./helpers.ts";

type Completion = { choices: Array<{ message: { content: string } }> };
const contentOfCompletion = (json: Completion): string => json.choices[0]!.message.content;

describe("stream: false — the whole answer or nothing", () => {
  it("a drop after part of the answer is retried, invisibly: the caller gets the whole answer", async () => {
    const { app, requests } = demoRelay();
    const response = await postChat(app, chatBody({ stream: false }), {
      headers: { "x-demo-fault": "attempt1=drop-after:3" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-stopstream-attempts")).toBe("2");
    const completion = (await response.json()) as Completion;
    expect(contentOfCompletion(completion)).toMatch(/^You said: "hello relay"\. This is/);
    expect(requests.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it("an in-stream error after content falls back to the next upstream", async () => {
    const upstream = fakeUpstream((request) =>
      request.url.startsWith("https://primary.test/")
        ? sseResponse([
          sse({ choices: [{ index: 0, delta: { content: "half an ans" }, finish_reason: null }] }),
          sse({ error: { message: "Upstream overloaded", type: "server_error" } }),
        ])
        : sseResponse([
          sse({ choices: [{ index: 0, delta: { content: "whole" }, finish_reason: "stop" }] }),
          "data: [DONE]\n\n",
        ])
    );
    const app = createRelay({
      upstreams: [{ baseURL: "https://primary.test/v1" }, { baseURL: "https://fallback.test/v1" }],
      maxRetries: 0,
      fetch: upstream.fetch,
    });
    const response = await postChat(app, chatBody());
    expect(response.status).toBe(200);
    expect(response.headers.get("x-stopstream-upstream")).toBe("1");
    expect(contentOfCompletion((await response.json()) as Completion)).toBe("whole");
    expect(upstream.seen).toHaveLength(2);
  });

  it("an upstream 4xx that arrives within the commit time keeps its status", async () => {
    const { app } = demoRelay();
    const response = await postChat(app, chatBody(), { headers: { "x-demo-fault": "status=422" } });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { error: { message: string } }).error.message)
      .toContain("status=422");
  });
});

describe("stream: false — a slow answer is committed early and written to", () => {
  it("200 at the commit time, spaces while waiting, then the chat.completion", async () => {
    const { app, requests } = demoRelay({ keepAliveMs: 30 });
    const response = await postChat(app, chatBody(), {
      headers: { "x-demo-fault": "first-byte-ms=200" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    // Compressed, the spaces would be held back (workerd and Cloudflare compress JSON).
    expect(response.headers.get("content-encoding")).toBe("identity");
    const text = await response.text();
    expect(text).toMatch(/^ {2,}\{/);
    expect(contentOfCompletion(JSON.parse(text) as Completion)).toMatch(/^You said/);
    expect(requests).toHaveLength(1);
  });

  it("a failure after the commit is a 200 whose JSON body is an OpenAI error object", async () => {
    const { app, requests } = demoRelay({ keepAliveMs: 30, maxRetries: 0 });
    const response = await postChat(app, chatBody(), {
      headers: { "x-demo-fault": "first-byte-ms=150,status=503" },
    });
    expect(response.status).toBe(200);
    const json = JSON.parse(await response.text()) as { error: { code: string; message: string } };
    expect(json.error.code).toBe("upstream_status");
    expect(json.error.message).toContain("HTTP 503");
    expect(requests).toHaveLength(1);
  });

  it("a caller who leaves while waiting cancels the upstream request at once, never retried", async () => {
    const { app, requests, cancelled } = demoRelay({ keepAliveMs: 30 });
    const response = await postChat(app, chatBody(), {
      headers: { "x-demo-fault": "first-byte-ms=10000" },
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^ +$/);
    await reader.cancel();
    expect((await cancelled).wordsSent).toBe(0);
    expect(requests).toHaveLength(1);
  });
});

describe("stream: true — before the first token", () => {
  it("the commit time and the probes do not wait for keepAliveMs (default 15 s)", async () => {
    const { app } = demoRelay();
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "first-byte-ms=1500" },
    });
    expect(response.status).toBe(200);
    const body = parseSSE(await response.text());
    expect(body.comments.filter((c) => c.beforeData === 0).length).toBeGreaterThanOrEqual(2);
    expect(contentOf(body)).toMatch(/^You said/);
  });
});
