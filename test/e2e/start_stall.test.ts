/**
 * The relay as `npm start` runs it, in front of a real loopback primary that stalls and a real
 * loopback fallback (the demo model): a stall before the first token fails over within the
 * `HEADERS_TIMEOUT_MS` / `FIRST_EVENT_TIMEOUT_MS` bindings, not the client's 60 s / 600 s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoUpstream } from "../../src/apps/demo/upstream.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { type StartedRelay, startRelay } from "../support/npm_start.ts";

const TIMEOUT_MS = 500;
/** The longest first backoff (`retry.maxDelayMs` aside) plus room for a loaded machine. */
const BACKOFF_MS = 1_000;

let primary: NodeServer;
let fallback: NodeServer;
let relay: StartedRelay;

/**
 * Stalls as the prompt says: `headers` accepts the request and sends nothing; `first-event`
 * sends a 200 and its headers, then nothing. Either way until the relay goes away.
 */
function stallingUpstream(): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = await request.json() as { messages: Array<{ content: string }> };
    const gone = new Promise<never>((_, reject) => {
      request.signal.addEventListener("abort", () => reject(new Error("relay went away")));
    });
    if (body.messages.at(-1)?.content === "headers") return await gone;
    return new Response(new ReadableStream({ pull: () => gone }), {
      headers: { "content-type": "text/event-stream" },
    });
  };
}

beforeAll(async () => {
  [primary, fallback] = await Promise.all([
    startNodeServer(stallingUpstream()),
    startNodeServer(createDemoUpstream({ wordDelayMs: 1 })),
  ]);
  relay = await startRelay(60_000, {
    UPSTREAM_BASE_URL: `${primary.url}/v1`,
    UPSTREAM_MODEL: "demo",
    FALLBACKS: JSON.stringify([{ baseURL: `${fallback.url}/v1`, model: "demo" }]),
    HEADERS_TIMEOUT_MS: String(TIMEOUT_MS),
    FIRST_EVENT_TIMEOUT_MS: String(TIMEOUT_MS),
  });
}, 90_000);

afterAll(async () => {
  await relay?.stop();
  await Promise.all([primary?.close(), fallback?.close()]);
});

/** The answer, and the ms from the request to its first content (what the caller waited). */
async function ask(prompt: string): Promise<{ text: string; ms: number }> {
  const started = Date.now();
  const response = await fetch(`${relay.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "demo",
      stream: true,
      messages: [{ role: "user", content: prompt }],
    }),
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let ms = Number.POSITIVE_INFINITY;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text, ms };
    text += value;
    if (ms === Number.POSITIVE_INFINITY && text.includes('"content":"')) ms = Date.now() - started;
  }
}

describe.skipIf(process.platform === "win32")("npm start: stall timeouts as bindings", () => {
  it.each(["headers", "first-event"])(
    "a primary stalled before its %s is answered by the fallback within the binding's timeout + a backoff",
    async (phase) => {
      const before = primary.requests().length;
      const fallbackBefore = fallback.requests().length;
      const { text, ms } = await ask(phase);
      expect(text, relay.output()).toContain('"content":" said:"');
      expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
      expect(ms).toBeLessThan(TIMEOUT_MS + BACKOFF_MS);
      // One request to the stalled primary, closed by the relay; then one to the fallback.
      expect(primary.requests().length).toBe(before + 1);
      expect(await (await primary.request(before + 1)).closed).toBe("aborted");
      expect(fallback.requests().length).toBe(fallbackBefore + 1);
    },
  );
});
