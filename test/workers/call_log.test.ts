/**
 * The relay's call log in workerd: one JSON line on `console.log` per call, asserted field by
 * field for a complete, an errored, a partial, a caller-gone and a cancelled call.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { chatBody, demoRelay, parseSSE, postChat } from "./helpers.ts";
import { cancel, follow, readThenDrop, startResumable, streamsRelay } from "./stream_helpers.ts";
import { callLines } from "../support/call_lines.ts";

const KEY = "sk-relay-Z3x9Qw7Lm2Vb8Kd";
const AUTH = { authorization: `Bearer ${KEY}` };
const DEMO_HOST = "demo.stopstream.invalid";

afterEach(() => vi.restoreAllMocks());

/** The key id the relay should log: 12 hex digits of SHA-256("stopstream key id:" + key). */
async function keyIdFor(key: string): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`stopstream key id:${key}`),
  );
  return [...new Uint8Array(digest).slice(0, 6)].map((b) => b.toString(16).padStart(2, "0"))
    .join("");
}

describe("the call log line", () => {
  it("a complete streamed call: every field", async () => {
    const log = callLines();
    const { app, requests } = demoRelay({ keys: [KEY] });
    // Usage is what the upstream reports: a streaming caller that does not ask gets none.
    const asked = chatBody({ stream: true, stream_options: { include_usage: true } });
    const response = await postChat(app, asked, { headers: AUTH });
    const body = parseSSE(await response.text());
    expect(body.done).toBe(true);
    const line = await log.next();
    expect(requests).toHaveLength(1);
    expect(Object.keys(line)).toEqual([
      "message",
      "callId",
      "route",
      "keyId",
      "stream",
      "attempts",
      "ttftMs",
      "totalMs",
      "usage",
      "finish",
      "outcome",
    ]);
    expect(line.message).toBe("stopstream.call");
    expect(line.callId).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(line.route).toBe("/v1/chat/completions");
    expect(line.keyId).toBe(await keyIdFor(KEY));
    expect(line.stream).toBe(true);
    expect(line.attempts).toEqual([{
      upstream: 0,
      host: DEMO_HOST,
      model: "demo",
      status: 200,
      error: null,
      waitMs: 0,
      durationMs: expect.any(Number),
    }]);
    expect(line.ttftMs).toBeGreaterThanOrEqual(0);
    expect(line.totalMs).toBeGreaterThanOrEqual(line.ttftMs!);
    expect(line.totalMs).toBeGreaterThanOrEqual(line.attempts[0]!.durationMs);
    expect(line.usage).toEqual({
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
      totalTokens: expect.any(Number),
    });
    expect(line.usage!.outputTokens).toBeGreaterThan(0);
    expect(line.finish).toBe("stop");
    expect(line.outcome).toBe("complete");
  });

  it("retries that run out: each attempt with its status, error kind and wait; outcome error", async () => {
    const log = callLines();
    const { app, requests } = demoRelay({ maxRetries: 1 });
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "status=503" },
    });
    expect(response.status).toBe(502);
    const line = await log.next();
    expect(requests).toHaveLength(2);
    expect(line.keyId).toBeNull(); // a relay without keys
    expect(line.attempts.map((a) => [a.upstream, a.status, a.error])).toEqual([
      [0, 503, "APIStatusError"],
      [0, 503, "APIStatusError"],
    ]);
    expect(line.attempts[0]!.waitMs).toBe(0);
    expect(line.attempts[1]!.waitMs).toBeGreaterThanOrEqual(1);
    expect(line).toMatchObject({ ttftMs: null, usage: null, finish: null, outcome: "error" });
  });

  it("a partial call: the upstream dropped mid-answer", async () => {
    const log = callLines();
    const { app, requests } = demoRelay();
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "drop-after=3" },
    });
    const body = parseSSE(await response.text());
    expect(body.done).toBe(false);
    const line = await log.next();
    expect(requests).toHaveLength(1);
    expect(line.attempts).toEqual([
      expect.objectContaining({ upstream: 0, status: 200, error: "ConnectionError", waitMs: 0 }),
    ]);
    expect(line.ttftMs).toBeGreaterThanOrEqual(0);
    expect(line).toMatchObject({ finish: "error", outcome: "partial", stream: true });
  });

  it("a caller gone mid-answer: outcome caller_gone, its request ended by the stop", async () => {
    const log = callLines();
    const { app, requests, cancelled } = demoRelay();
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "word-delay=20" },
    });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await cancelled;
    const line = await log.next();
    expect(requests).toHaveLength(1);
    expect(line.attempts).toEqual([
      expect.objectContaining({ upstream: 0, status: 200, error: "InterruptedError" }),
    ]);
    expect(line).toMatchObject({ finish: null, usage: null, outcome: "caller_gone" });
  });

  it("a stream: false call is logged too, without a time to first token", async () => {
    const log = callLines();
    const { app } = demoRelay();
    const response = await postChat(app, chatBody());
    expect(response.status).toBe(200);
    await response.json();
    const line = await log.next();
    expect(line).toMatchObject({
      stream: false,
      ttftMs: null,
      finish: "stop",
      outcome: "complete",
    });
  });

  it("a cancelled resumable stream: logged by its Durable Object with the stream id", async () => {
    const log = callLines();
    const { app } = streamsRelay("words=400,word-delay=10", { keys: [KEY] });
    const response = await startResumable(app, AUTH);
    const id = response.headers.get("x-stopstream-stream-id")!;
    await readThenDrop(response, 3);
    expect((await cancel(app, id, AUTH)).status).toBe(200);
    const line = await log.next();
    expect(line).toMatchObject({
      route: "/v1/chat/completions",
      streamId: id,
      keyId: await keyIdFor(KEY),
      stream: true,
      finish: null,
      outcome: "cancelled",
    });
    expect(line.attempts).toEqual([
      expect.objectContaining({ upstream: 0, status: 200, error: "InterruptedError" }),
    ]);
    expect(line.ttftMs).toBeGreaterThanOrEqual(0);
  });

  it("a reader's resume (GET /v1/streams/{id}) is a line of its own, outcome resumed", async () => {
    const log = callLines();
    const { app } = streamsRelay("words=30,word-delay=5", { keys: [KEY] });
    const response = await startResumable(app, AUTH);
    const id = response.headers.get("x-stopstream-stream-id")!;
    await readThenDrop(response, 2);
    const rest = await follow(app, id, 2, AUTH);
    expect(rest.status).toBe(200);
    await rest.text();
    const line = await log.find((l) => l.route === "/v1/streams/{id}");
    expect(line).toEqual({
      message: "stopstream.call",
      callId: id,
      route: "/v1/streams/{id}",
      keyId: await keyIdFor(KEY),
      stream: true,
      streamId: id,
      attempts: [],
      ttftMs: null,
      totalMs: expect.any(Number),
      usage: null,
      finish: null,
      outcome: "resumed",
    });
    // The call itself is logged once, by its Durable Object.
    const call = await log.find((l) => l.route === "/v1/chat/completions");
    expect(call).toMatchObject({ streamId: id, outcome: "complete", finish: "stop" });
  });

  it("LOG_CALLS off (logCalls: false): no line", async () => {
    const log = callLines();
    const quiet = demoRelay({ logCalls: false });
    await (await postChat(quiet.app, chatBody({ stream: true }))).text();
    // A call after it that is logged: its line is the first and only one.
    const logged = demoRelay();
    await (await postChat(logged.app, chatBody({ stream: true }))).text();
    await log.next();
    expect(quiet.requests).toHaveLength(1);
    expect(log.all.filter((l) => l.includes("stopstream.call"))).toHaveLength(1);
  });

  it("no key material in any line: neither the relay key nor the upstream's, nor a piece", async () => {
    const log = callLines();
    const upstreamKey = "Hq8Rw2Nv5TxPz4Jc";
    const { app } = streamsRelay("", { keys: [KEY] }, { apiKey: upstreamKey });
    await (await postChat(app, chatBody({ stream: true }), { headers: AUTH })).text();
    await log.next();
    const text = log.all.join("\n");
    for (const secret of [KEY, upstreamKey]) {
      for (let i = 0; i + 6 <= secret.length; i++) {
        expect(text).not.toContain(secret.slice(i, i + 6));
      }
    }
  });
});
