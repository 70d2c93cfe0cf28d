/**
 * Per-key limits counted in the `LIMITS` Durable Object (issue #29, item 5), in workerd:
 * requests per minute and calls in flight per relay key, answered with 429 and `Retry-After` in
 * OpenAI's error shape; a slot is freed when its call ends however it ends, and a lease that
 * nobody renews (a crashed isolate) lapses. `Date.now()` is faked; timers stay real.
 */

import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import type { RelayNamespace } from "../../src/relay/durable.ts";
import { relayOptionsFromEnv } from "../../src/relay/env.ts";
import { RelayLimits } from "../../src/relay/limits/relay_limits.ts";
import type { RelayOptions } from "../../src/relay/options.ts";
import { answer, chatBody, fakeUpstream, sse } from "./helpers.ts";
import { fakeDateFrom } from "../support/fake_date.ts";

const T0 = Date.UTC(2025, 0, 1);

fakeDateFrom(T0);

/** env.LIMITS, noting the object names the relay asks for. */
function namedLimits(): { namespace: RelayNamespace; names: string[] } {
  const names: string[] = [];
  const namespace: RelayNamespace = {
    idFromName: (name) => {
      names.push(name);
      return env.LIMITS.idFromName(name);
    },
    get: (id) => env.LIMITS.get(id as ReturnType<typeof env.LIMITS.idFromName>),
  };
  return { namespace, names };
}

/** An upstream whose answers stay open until `finish()`, or answer at once when `open` is off. */
function heldUpstream() {
  const open: Array<ReadableStreamDefaultController<Uint8Array>> = [];
  const upstream = fakeUpstream(() => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(sse({
          choices: [{ index: 0, delta: { content: "held" }, finish_reason: null }],
        })));
        open.push(controller);
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const finish = (): void => {
    const controller = open.shift()!;
    controller.enqueue(new TextEncoder().encode("data: [DONE]\n\n"));
    controller.close();
  };
  return { upstream, finish, open };
}

/**
 * A relay ("isolate") on one upstream, keys `k1` and `k2` (after `prefix`, as objects live as
 * long as the test file); `ask` keeps what the call left running.
 */
function relay(options: RelayOptions, fetchUpstream: typeof fetch, prefix = "") {
  const app = createRelay({
    upstreams: [{ baseURL: "https://primary.test/v1" }],
    keys: [`${prefix}k1`, `${prefix}k2`],
    maxRetries: 0,
    retryBudget: false,
    fetch: fetchUpstream,
    ...options,
  });
  const kept: Promise<unknown>[] = [];
  const ctx = {
    waitUntil: (promise: Promise<unknown>) => kept.push(promise),
    passThroughOnException: () => {},
    props: {},
  };
  const ask = (key: string, init: { stream?: boolean; signal?: AbortSignal } = {}) =>
    Promise.resolve(app.request(
      "http://relay.test/v1/chat/completions",
      {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${prefix}${key}` },
        body: JSON.stringify(chatBody({ stream: init.stream ?? true })),
        ...(init.signal ? { signal: init.signal } : {}),
      },
      undefined,
      ctx,
    ));
  /** Everything the calls so far left running (slot releases) has finished. */
  const settled = async (): Promise<void> => {
    while (kept.length > 0) await Promise.all(kept.splice(0));
  };
  return { ask, settled };
}

describe("per-key requests per minute (keyRpm)", () => {
  it("the request over the limit gets a 429 with Retry-After in OpenAI's shape, and no upstream request", async () => {
    const { namespace } = namedLimits();
    const upstream = fakeUpstream(() => answer("ok"));
    const { ask } = relay({ limits: namespace, keyRpm: 2 }, upstream.fetch);
    expect((await ask("k1")).status).toBe(200);
    vi.setSystemTime(T0 + 20_000);
    expect((await ask("k1", { stream: false })).status).toBe(200);
    vi.setSystemTime(T0 + 30_000);
    const refused = await ask("k1");
    expect(refused.status).toBe(429);
    // The first request counts until T0 + 60 s.
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(await refused.json()).toEqual({
      error: {
        message: expect.stringContaining("2 requests per minute"),
        type: "rate_limit_error",
        param: null,
        code: "rate_limit_exceeded",
      },
    });
    expect(upstream.seen.length).toBe(2);
    // Another key has its own count.
    expect((await ask("k2")).status).toBe(200);
    vi.setSystemTime(T0 + 60_000);
    expect((await ask("k1")).status).toBe(200);
    expect(upstream.seen.length).toBe(4);
  });

  it("holds across isolates: two relays sharing LIMITS count one key together", async () => {
    const { namespace } = namedLimits();
    const upstream = fakeUpstream(() => answer("ok"));
    const a = relay({ limits: namespace, keyRpm: 2 }, upstream.fetch, "isolates-");
    const b = relay({ limits: namespace, keyRpm: 2 }, upstream.fetch, "isolates-");
    expect((await a.ask("k1")).status).toBe(200);
    expect((await b.ask("k1")).status).toBe(200);
    expect((await a.ask("k1")).status).toBe(429);
    expect((await b.ask("k1")).status).toBe(429);
    expect(upstream.seen.length).toBe(2);
  });

  it("names each key's object by a hash: no key is ever in a name", async () => {
    const { namespace, names } = namedLimits();
    const upstream = fakeUpstream(() => answer(""));
    const { ask } = relay({ limits: namespace, keyRpm: 5 }, upstream.fetch, "names-");
    await (await ask("k1")).text();
    await (await ask("k2")).text();
    expect(names).toHaveLength(2);
    expect(names[0]).toMatch(/^limits:[0-9a-f]{32}$/);
    expect(names[0]).not.toBe(names[1]);
    for (const name of names) expect(name).not.toMatch(/names-k/);
  });
});

describe("per-key calls in flight (keyConcurrency)", () => {
  it("a second call while one streams gets a 429; the slot is free once the stream ends", async () => {
    const { namespace } = namedLimits();
    const held = heldUpstream();
    const { ask, settled } = relay(
      { limits: namespace, keyConcurrency: 1 },
      held.upstream.fetch,
      "ends-",
    );
    const first = await ask("k1");
    expect(first.status).toBe(200);
    const refused = await ask("k1");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(((await refused.json()) as { error: { code: string } }).error.code)
      .toBe("too_many_concurrent_requests");
    const other = await ask("k2");
    expect(other.status).toBe(200);
    held.finish();
    held.finish();
    expect(await first.text()).toContain("[DONE]");
    await other.text();
    await settled();
    const third = await ask("k1");
    expect(third.status).toBe(200);
    expect(held.upstream.seen.length).toBe(3);
  });

  it("a caller that goes away frees its slot", async () => {
    const { namespace } = namedLimits();
    const held = heldUpstream();
    const { ask, settled } = relay(
      { limits: namespace, keyConcurrency: 1 },
      held.upstream.fetch,
      "gone-",
    );
    const leaving = new AbortController();
    const first = await ask("k1", { signal: leaving.signal });
    expect(first.status).toBe(200);
    expect((await ask("k1")).status).toBe(429);
    leaving.abort();
    await first.body?.cancel().catch(() => {});
    await settled();
    expect((await ask("k1")).status).toBe(200);
  });

  it("a call that fails frees its slot", async () => {
    const { namespace } = namedLimits();
    let n = 0;
    const upstream = fakeUpstream(() =>
      ++n === 1
        ? Response.json({ error: { message: "bad", type: "invalid_request_error" } }, {
          status: 400,
        })
        : answer("ok")
    );
    const { ask, settled } = relay(
      { limits: namespace, keyConcurrency: 1 },
      upstream.fetch,
      "fails-",
    );
    expect((await ask("k1", { stream: false })).status).toBe(400);
    await settled();
    expect((await ask("k1", { stream: false })).status).toBe(200);
  });
});

describe("RelayLimits, the Durable Object", () => {
  const post = (limits: RelayLimits, path: string, body: unknown) =>
    limits.fetch(
      new Request(`https://relay-limits${path}`, { method: "POST", body: JSON.stringify(body) }),
    ).then((r) => r.json() as Promise<Record<string, unknown>>);

  it("a lease nobody renews lapses: a crashed isolate cannot hold a slot for ever", async () => {
    const limits = new RelayLimits();
    const acquire = { rpm: 0, concurrency: 1, leaseMs: 60_000 };
    const { lease } = await post(limits, "/acquire", acquire);
    expect(typeof lease).toBe("string");
    expect(await post(limits, "/acquire", acquire)).toEqual({
      refused: "concurrency",
      retryAfterS: 1,
    });
    vi.setSystemTime(T0 + 59_999);
    expect((await post(limits, "/acquire", acquire)).refused).toBe("concurrency");
    vi.setSystemTime(T0 + 60_000);
    expect(typeof (await post(limits, "/acquire", acquire)).lease).toBe("string");
  });

  it("a renewed lease holds past its first expiry; a lapsed one cannot be renewed", async () => {
    const limits = new RelayLimits();
    const acquire = { rpm: 0, concurrency: 1, leaseMs: 60_000 };
    const { lease } = await post(limits, "/acquire", acquire);
    vi.setSystemTime(T0 + 40_000);
    expect(await post(limits, "/renew", { lease, leaseMs: 60_000 })).toEqual({ held: true });
    vi.setSystemTime(T0 + 90_000);
    expect((await post(limits, "/acquire", acquire)).refused).toBe("concurrency");
    vi.setSystemTime(T0 + 100_000);
    expect(await post(limits, "/renew", { lease, leaseMs: 60_000 })).toEqual({ held: false });
    expect(limits.inFlight()).toBe(0);
  });

  it("a request refused for its slot does not use up one of the minute's requests", async () => {
    const limits = new RelayLimits();
    const acquire = { rpm: 2, concurrency: 1, leaseMs: 60_000 };
    const { lease } = await post(limits, "/acquire", acquire);
    expect((await post(limits, "/acquire", acquire)).refused).toBe("concurrency");
    await post(limits, "/release", { lease });
    expect(typeof (await post(limits, "/acquire", acquire)).lease).toBe("string");
  });
});

describe("bindings", () => {
  it("KEY_RPM and KEY_CONCURRENCY become options; without LIMITS they are refused", () => {
    const options = relayOptionsFromEnv({
      LIMITS: env.LIMITS,
      KEY_RPM: "60",
      KEY_CONCURRENCY: "4",
      HEALTH: env.HEALTH,
    });
    expect(options.keyRpm).toBe(60);
    expect(options.keyConcurrency).toBe(4);
    expect(options.limits).toBe(env.LIMITS);
    expect(options.health).toBe(env.HEALTH);
    expect(() => relayOptionsFromEnv({ KEY_RPM: "60" })).toThrow(/LIMITS/);
    expect(() => relayOptionsFromEnv({ LIMITS: env.LIMITS, KEY_CONCURRENCY: "-1" })).toThrow(
      /KEY_CONCURRENCY must be a whole number/,
    );
    expect(() => createRelay({ upstreams: [{ baseURL: "https://a.test" }], keyRpm: 1 }))
      .toThrow(/limits/);
  });
});
