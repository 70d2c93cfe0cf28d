/**
 * Cooldown shared across isolates (issue #29, item 4), end to end: two instances of the relay
 * Worker as `npm start` serves it share wrangler.toml's `HEALTH` Durable Object; an upstream that
 * fails for callers of instance A is skipped by instance B, which alone has seen it fail at most
 * once (its cooldown needs 3). The upstreams are a loopback server that counts requests.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { type RelayPair, startRelayPair } from "../support/relay_pair.ts";

const KEYS = ["key-a1", "key-a2", "key-a3", "key-b1", "key-rpm"];
/** Per-key requests per minute, counted in the shared `LIMITS` object. */
const KEY_RPM = 12;
const state = { primaryDown: false };
let upstream: NodeServer;
let pair: RelayPair;

const CHUNK = { choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] };

beforeAll(async () => {
  upstream = await startNodeServer((request) => {
    const primary = new URL(request.url).pathname.startsWith("/primary/");
    if (primary && state.primaryDown) {
      return Promise.resolve(
        Response.json({ error: { message: "down", type: "server_error" } }, { status: 503 }),
      );
    }
    const body = `data: ${JSON.stringify(CHUNK)}\n\ndata: [DONE]\n\n`;
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  });
  pair = await startRelayPair({
    UPSTREAM_BASE_URL: `${upstream.url}/primary/v1`,
    UPSTREAM_MODEL: "loopback",
    FALLBACKS: JSON.stringify([{ baseURL: `${upstream.url}/second/v1`, model: "loopback" }]),
    RELAY_KEYS: KEYS.join(","),
    KEY_RPM: String(KEY_RPM),
  });
}, 120_000);

afterAll(async () => {
  await pair?.stop();
  await upstream?.close();
});

/** How many requests the primary has had. */
const primaryRequests = (): number =>
  upstream.requests().filter((r) => r.path.startsWith("/primary/")).length;

function post(which: 0 | 1, key: string): Promise<Response> {
  return fetch(`${pair.urls[which]}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: "x", stream: true, messages: [{ role: "user", content: "hi" }] }),
  });
}

/** One streaming call through instance `which`; resolves with the primary requests it made. */
async function call(which: 0 | 1, key: string): Promise<number> {
  const before = primaryRequests();
  const response = await post(which, key);
  expect(response.status).toBe(200);
  expect(await response.text()).toContain("[DONE]");
  return primaryRequests() - before;
}

it("an upstream failing through instance A is skipped by instance B", async () => {
  // B has seen the primary working: its view of the fleet is fresh.
  expect(await call(1, "key-b1")).toBe(1);
  state.primaryDown = true;
  // Three callers of A see it fail: A's cooldown (3 failures) opens, and the fleet's.
  for (const key of ["key-a1", "key-a2", "key-a3"]) expect(await call(0, key)).toBeGreaterThan(0);
  expect(await call(0, "key-a1")).toBe(0);
  // B reads the fleet's view at most once a second, off the request's path: poll until it
  // skips the primary (no event tells when a second has passed).
  let hitsFromB = 0;
  let skipped = 0;
  const deadline = Date.now() + 10_000;
  while (skipped < 3 && Date.now() < deadline) {
    const hits = await call(1, "key-b1");
    if (hits === 0) skipped++;
    else hitsFromB++;
    if (hits > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(skipped).toBe(3);
  // B alone saw the outage at most once: never enough for its own cooldown (3 calls).
  expect(hitsFromB).toBeLessThanOrEqual(1);
}, 60_000);

it(
  "KEY_RPM holds across the two instances: the request over it gets a 429 with Retry-After",
  async () => {
    const before = upstream.requests().length;
    for (let i = 0; i < KEY_RPM; i++) await call(i % 2 === 0 ? 0 : 1, "key-rpm");
    const served = upstream.requests().length - before;
    for (const which of [0, 1] as const) {
      const refused = await post(which, "key-rpm");
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      const body = (await refused.json()) as { error: { code: string; type: string } };
      expect(body.error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
    }
    expect(upstream.requests().length - before).toBe(served);
    // Another key is not limited by this one's count.
    const other = await post(0, "key-a2");
    expect(other.status).toBe(200);
    await other.text();
  },
  60_000,
);
