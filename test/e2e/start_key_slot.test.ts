/**
 * `KEY_CONCURRENCY` as `npm start` runs it (workerd, the `LIMITS` Durable Object of
 * wrangler.toml): a real caller reading a stream over a real socket holds its key's one slot;
 * when it closes the socket mid-answer the relay learns it only when a write to it fails (a
 * keep-alive, here every 500 ms), and the slot must then be free for the next call with that key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { type StartedRelay, startRelay } from "../support/npm_start.ts";

const KEY = "sk-relay-Tn5Gx2Wq8Bm4";
const encoder = new TextEncoder();
/** A keep-alive fails, the call ends, its lease is released: well within this. */
const FREED_WITHIN_MS = 5_000;

let upstream: NodeServer;
let relay: StartedRelay;

function chunk(content: string, finish: string | null = null): string {
  return `data: ${
    JSON.stringify({
      id: "chatcmpl-slot",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      choices: [{ index: 0, delta: { content }, finish_reason: finish }],
    })
  }\n\n`;
}

beforeAll(async () => {
  // The first request's answer begins, then holds until the relay goes away; later ones answer.
  upstream = await startNodeServer((request) => {
    const first = upstream.requests().length === 1;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(chunk("Hello")));
        if (first) {
          request.signal.addEventListener("abort", () => controller.error(new Error("gone")));
          return;
        }
        controller.enqueue(encoder.encode(chunk("", "stop") + "data: [DONE]\n\n"));
        controller.close();
      },
    });
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  });
  relay = await startRelay(60_000, {
    UPSTREAM_BASE_URL: `${upstream.url}/v1`,
    UPSTREAM_MODEL: "m",
    RELAY_KEYS: KEY,
    KEY_CONCURRENCY: "1",
    KEEPALIVE_MS: "500",
  });
}, 90_000);

afterAll(async () => {
  await relay?.stop();
  await upstream?.close();
});

function post(signal?: AbortSignal): Promise<Response> {
  return fetch(`${relay.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "Hi" }] }),
    ...(signal === undefined ? {} : { signal }),
  });
}

describe.skipIf(process.platform === "win32")("npm start: KEY_CONCURRENCY=1", () => {
  it("a caller that closes its socket mid-answer frees its key's slot", async () => {
    const caller = new AbortController();
    const response = await post(caller.signal);
    expect(response.status, relay.output()).toBe(200);
    const reader = response.body!.getReader();
    let seen = "";
    while (!seen.includes("Hello")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`ended before the answer began: ${seen}`);
      seen += new TextDecoder().decode(value);
    }

    const refused = await post();
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain("too_many_concurrent_requests");

    const served = await upstream.request(1);
    caller.abort();
    expect(await served.closed, relay.output()).toBe("aborted");

    // The lease is released after the call ends, off the caller's path: ask until it is free,
    // as a client honouring Retry-After would, within a bound.
    const left = Date.now();
    let status = 0;
    while (Date.now() - left < FREED_WITHIN_MS) {
      const next = await post();
      status = next.status;
      const text = await next.text();
      if (status !== 429) {
        expect(text).toContain("[DONE]");
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100)); // between polls, not a sync
    }
    expect(status, relay.output()).toBe(200);
    expect(upstream.requests().length).toBe(2);
  }, 30_000);
});
