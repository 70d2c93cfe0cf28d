/**
 * Resumable streams end to end: the relay Worker under `wrangler dev` (workerd with its
 * SQLite-backed `RelayStream` Durable Object, real sockets), the demo model as its upstream on a
 * loopback server that counts requests and sees its connections close.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoUpstream } from "../../src/apps/demo/upstream.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamEvent } from "../../src/core/chat_result.ts";
import { type CuttingProxy, startCuttingProxy } from "../support/cutting_proxy.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { startWranglerDev, type WranglerDev } from "./wrangler_dev.ts";

let upstream: NodeServer;
let relay: WranglerDev;

beforeAll(async () => {
  upstream = await startNodeServer(createDemoUpstream({ wordDelayMs: 40 }));
  relay = await startWranglerDev({
    UPSTREAM_BASE_URL: `${upstream.url}/v1`,
    UPSTREAM_MODEL: "demo",
  });
});

afterAll(async () => {
  await relay?.stop();
  await upstream?.close();
});

const BODY = { model: "demo", stream: true, messages: [{ role: "user", content: "Resume me" }] };

function start(signal?: AbortSignal): Promise<Response> {
  return fetch(`${relay.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-stopstream-resumable": "true" },
    body: JSON.stringify(BODY),
    ...(signal ? { signal } : {}),
  });
}

interface Event {
  id: string | undefined;
  data: string;
}

function eventsOf(raw: string): Event[] {
  const events: Event[] = [];
  for (const block of raw.split("\n\n")) {
    const id = /^id: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (data !== undefined) events.push({ id, data });
  }
  return events;
}

function contentOf(events: Event[]): string {
  return events.filter((e) => e.data !== "[DONE]").map((e) =>
    (JSON.parse(e.data) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta
      .content ?? ""
  ).join("");
}

/** Reads until `tokens` content deltas arrived; returns the whole events read. */
async function readTokens(response: Response, tokens: number): Promise<Event[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let raw = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error("the stream ended early");
    raw += decoder.decode(value, { stream: true });
    const events = eventsOf(raw.slice(0, raw.lastIndexOf("\n\n") + 2));
    if (events.filter((e) => e.data.includes('"content":"')).length >= tokens) return events;
  }
}

/** The answer of an undisturbed resumable stream. */
async function undisturbed(): Promise<{ events: Event[]; id: string }> {
  const response = await start();
  const id = response.headers.get("x-stopstream-stream-id")!;
  return { events: eventsOf(await response.text()), id };
}

describe("wrangler dev: a dropped connection resumes the answer", () => {
  it("drop after 5 tokens, reconnect after 1 s: the answer of an undisturbed run, 1 upstream request, no event twice", async () => {
    const reference = await undisturbed();
    const before = upstream.requests().length;
    const caller = new AbortController();
    const response = await start(caller.signal);
    const id = response.headers.get("x-stopstream-stream-id")!;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const first = await readTokens(response, 5);
    caller.abort(); // the connection drops
    const served = await upstream.request(before + 1);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // the scenario: 1 s offline
    const resumed = await fetch(`${relay.url}/v1/streams/${id}`, {
      headers: { "last-event-id": first.at(-1)!.id! },
    });
    expect(resumed.status).toBe(200);
    const rest = eventsOf(await resumed.text());
    const all = [...first, ...rest];
    const numbers = all.map((e) => Number(e.id));
    expect(numbers).toEqual(numbers.map((_, i) => i + 1)); // no gap, no duplicate
    expect(new Set(numbers).size).toBe(all.length);
    expect(all.at(-1)?.data).toBe("[DONE]");
    // Byte for byte the answer of an undisturbed run, and the events the stream kept.
    expect(contentOf(all)).toBe(contentOf(reference.events));
    const replay = await (await fetch(`${relay.url}/v1/streams/${id}`)).text();
    expect(eventsOf(replay)).toEqual(all);
    // The upstream served one request, and ran it to its end with nobody connected.
    expect(await served.closed).toBe("finished");
    expect(upstream.requests().length).toBe(before + 1);
  });

  it("the same through the stopstream client, with nothing in the test but the header", async () => {
    const reference = await undisturbed();
    const proxy: CuttingProxy = await startCuttingProxy(relay.url, {
      connection: 1,
      afterContent: 5,
    });
    try {
      const before = upstream.requests().length;
      const stream = streamChat({
        baseURL: `${proxy.url}/v1`,
        headers: { "x-stopstream-resumable": "true" },
        body: { model: "demo", messages: BODY.messages },
      });
      const events: StreamEvent[] = [];
      for await (const event of stream) events.push(event);
      const result = await stream.result;
      expect(proxy.cut).toBe(true);
      expect(result.resumes).toBe(1);
      expect(events.filter((e) => e.type === "resume")).toHaveLength(1);
      expect(result.content).toBe(contentOf(reference.events));
      const texts = events.flatMap((e) => (e.type === "text" ? [e.text] : [])).join("");
      expect(texts).toBe(result.content); // every delta once
      expect(result.finishReason).toBe("stop");
      expect(upstream.requests().length).toBe(before + 1);
    } finally {
      await proxy.close();
    }
  });
});

describe("wrangler dev: stop still means stop", () => {
  it("POST /v1/streams/{id}/cancel closes the upstream connection within 100 ms and ends the readers", async () => {
    const before = upstream.requests().length;
    const response = await fetch(`${relay.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-stopstream-resumable": "true" },
      body: JSON.stringify({ ...BODY, messages: [{ role: "user", content: "Stop me" }] }),
    });
    const id = response.headers.get("x-stopstream-stream-id")!;
    const reading = response.text();
    const served = await upstream.request(before + 1);
    const closedAt = served.closed.then((how) => ({ how, at: performance.now() }));
    const sent = performance.now();
    const cancelled = await fetch(`${relay.url}/v1/streams/${id}/cancel`, { method: "POST" });
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toEqual(expect.objectContaining({ cancelled: true }));
    const closed = await closedAt;
    expect(closed.how).toBe("aborted");
    // The bound, measured on loopback: cancel request sent → upstream sees the close.
    expect(closed.at - sent).toBeLessThan(100);
    const events = eventsOf(await reading);
    expect(events.some((e) => e.data === "[DONE]")).toBe(false);
    expect(JSON.parse(events.at(-1)!.data).error.code).toBe("stream_cancelled");
    expect(upstream.requests().length).toBe(before + 1);
  });

  it("abort in the stopstream client cancels the resumable stream on the relay", async () => {
    const before = upstream.requests().length;
    const caller = new AbortController();
    const stream = streamChat({
      baseURL: `${relay.url}/v1`,
      headers: { "x-stopstream-resumable": "true" },
      body: { model: "demo", messages: [{ role: "user", content: "Abort me" }] },
      signal: caller.signal,
    });
    for await (const event of stream) {
      if (event.type === "text") break;
    }
    const served = await upstream.request(before + 1);
    expect(await served.closed).toBe("aborted");
    expect(upstream.requests().length).toBe(before + 1);
  });
});
