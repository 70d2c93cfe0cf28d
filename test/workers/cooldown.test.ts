/**
 * Upstream cooldown through the relay, in workerd: a primary that keeps failing is skipped for
 * a while, then probed by one call. The clock is `Date.now()`, faked (timers stay real), so the
 * tests decide when a cooldown is over.
 */

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import { relayOptionsFromEnv } from "../../src/relay/env.ts";
import type { RelayOptions } from "../../src/relay/options.ts";
import { createRetryBudget } from "../../src/core/retry_budget.ts";
import {
  answer,
  chatBody,
  contentOf,
  deferred,
  fakeUpstream,
  hostOf,
  overloaded,
  parseSSE,
  postChat,
  type SeenRequest,
} from "./helpers.ts";

const T0 = Date.UTC(2025, 0, 1);
const PRIMARY = "https://primary.test/v1";
const SECOND = "https://second.test/v1";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

/** A relay on two upstreams (the primary, then the second) with a fake upstream fetch. */
function relay(
  respond: (request: SeenRequest, n: number) => Response | Promise<Response>,
  options: RelayOptions = {},
) {
  const upstream = fakeUpstream(respond);
  const app = createRelay({
    upstreams: [{ baseURL: PRIMARY }, { baseURL: SECOND }],
    maxRetries: 1,
    retry: { initialDelayMs: 1, maxDelayMs: 1 },
    retryBudget: false,
    fetch: upstream.fetch,
    ...options,
  });
  /** Sends one streaming request; resolves with the answering upstream and the hosts it took. */
  const ask = async (init: { signal?: AbortSignal } = {}) => {
    const before = upstream.seen.length;
    const response = await postChat(app, chatBody({ stream: true }), init);
    const body = parseSSE(await response.text());
    return {
      status: response.status,
      upstream: response.headers.get("x-stopstream-upstream"),
      content: contentOf(body),
      hosts: upstream.seen.slice(before).map(hostOf),
    };
  };
  return { app, upstream, ask };
}

/** The primary answers 503 while `down()`, the second always answers. */
function primaryDown(down: () => boolean) {
  return (request: SeenRequest) =>
    hostOf(request) === "primary.test" && down() ? overloaded() : answer(hostOf(request));
}

describe("upstream cooldown", () => {
  it("after 3 failed calls the primary is skipped: one request to the fallback per call", async () => {
    const { ask } = relay(primaryDown(() => true));
    for (let i = 0; i < 3; i++) {
      const call = await ask();
      expect(call.hosts).toEqual(["primary.test", "primary.test", "second.test"]);
      expect(call.upstream).toBe("1");
      vi.setSystemTime(T0 + (i + 1) * 1000);
    }
    for (let i = 0; i < 5; i++) {
      const call = await ask();
      expect(call.hosts).toEqual(["second.test"]);
      expect(call.content).toBe("second.test");
      // Which upstream answered, among the configured ones: not the call's first target.
      expect(call.upstream).toBe("1");
    }
    // The default cooldown: 30 s from the third failure (at T0 + 2 s), then a probe.
    vi.setSystemTime(T0 + 2_000 + 29_999);
    expect((await ask()).hosts).toEqual(["second.test"]);
    vi.setSystemTime(T0 + 2_000 + 30_000);
    expect((await ask()).hosts).toEqual(["primary.test", "primary.test", "second.test"]);
  });

  it("the non-streaming answer names the configured upstream too", async () => {
    const { app, upstream } = relay(primaryDown(() => true), { cooldownFailures: 1 });
    await (await postChat(app, chatBody({ stream: false }))).text();
    const before = upstream.seen.length;
    const response = await postChat(app, chatBody({ stream: false }));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-stopstream-upstream")).toBe("1");
    expect(upstream.seen.slice(before).map(hostOf)).toEqual(["second.test"]);
  });

  it("after the cooldown one call probes the primary, and its success puts it back", async () => {
    let down = true;
    const { ask } = relay(primaryDown(() => down), { cooldownFailures: 2, cooldownMs: 10_000 });
    await ask();
    await ask();
    expect((await ask()).hosts).toEqual(["second.test"]);
    vi.setSystemTime(T0 + 9_999);
    expect((await ask()).hosts).toEqual(["second.test"]);
    down = false;
    vi.setSystemTime(T0 + 10_000);
    const probe = await ask();
    expect(probe.hosts).toEqual(["primary.test"]);
    expect(probe.upstream).toBe("0");
    expect((await ask()).hosts).toEqual(["primary.test"]);
  });

  it("while the probe is out, other calls go to the next upstream; a failed probe cools down again", async () => {
    const release = deferred<Response>();
    const probeSent = deferred();
    let probing = false;
    const { ask, upstream } = relay((request) => {
      if (hostOf(request) !== "primary.test") return answer("second");
      if (!probing) return overloaded();
      probeSent.resolve();
      return release.promise;
    }, { cooldownFailures: 1, cooldownMs: 5_000, maxRetries: 0 });
    expect((await ask()).hosts).toEqual(["primary.test", "second.test"]);
    vi.setSystemTime(T0 + 5_000);
    probing = true;
    const probe = ask();
    await probeSent.promise;
    // Concurrent with the probe: straight to the second upstream.
    expect((await ask()).hosts).toEqual(["second.test"]);
    expect((await ask()).hosts).toEqual(["second.test"]);
    probing = false;
    release.resolve(overloaded());
    const probed = await probe;
    expect(probed.upstream).toBe("1"); // the probe failed over to the second upstream
    expect(upstream.seen.map(hostOf).filter((host) => host === "primary.test")).toHaveLength(2);
    // Failed: another full cooldown from now, then another probe.
    vi.setSystemTime(T0 + 9_999);
    expect((await ask()).hosts).toEqual(["second.test"]);
    vi.setSystemTime(T0 + 10_000);
    expect((await ask()).hosts).toEqual(["primary.test", "second.test"]);
  });

  it("a caller abort is never an upstream failure", async () => {
    const { app, upstream } = relay((request) => {
      if (hostOf(request) !== "primary.test") return answer("second");
      // Headers never come: the caller gives up first.
      return new Promise<Response>(() => {});
    }, { cooldownFailures: 1 });
    for (let i = 0; i < 3; i++) {
      const caller = new AbortController();
      const seen = upstream.seen.length;
      const pending = postChat(app, chatBody({ stream: true }), { signal: caller.signal })
        .then((response) => response.text())
        .catch(() => "aborted");
      while (upstream.seen.length === seen) await new Promise((resolve) => setTimeout(resolve, 1));
      caller.abort();
      await pending;
    }
    expect(upstream.seen.map(hostOf)).toEqual(["primary.test", "primary.test", "primary.test"]);
  });

  // 400: the caller's request (passed on); 401/403: the relay's own key refused (the caller gets
  // a 502: its own key was fine), which no cooldown would fix.
  it.each([[400, 400], [401, 502], [403, 502]])(
    "a %i is never an upstream failure",
    async (status, answered) => {
      const { ask } = relay(
        (request) =>
          hostOf(request) === "primary.test"
            ? Response.json({ error: { message: "refused", type: "invalid_request_error" } }, {
              status,
            })
            : answer("second"),
        { cooldownFailures: 1 },
      );
      for (let i = 0; i < 3; i++) {
        const call = await ask();
        expect(call.status).toBe(answered);
        expect(call.hosts).toEqual(["primary.test"]);
      }
    },
  );

  it("a success in between starts the count again, and failures more than 30 s apart do not add up", async () => {
    let down = true;
    const { ask } = relay(primaryDown(() => down), { cooldownFailures: 2 });
    await ask(); // 1
    down = false;
    await ask(); // success: 0
    down = true;
    await ask(); // 1
    vi.setSystemTime(T0 + 30_001);
    await ask(); // more than 30 s after the first: 1 again
    expect((await ask()).hosts).toEqual(["primary.test", "primary.test", "second.test"]); // 2
    expect((await ask()).hosts).toEqual(["second.test"]);
  });

  it("with every upstream cooling down, a call tries the one whose cooldown ends first, alone", async () => {
    const { ask } = relay(() => overloaded(), { cooldownFailures: 1, maxRetries: 0 });
    expect((await ask()).hosts).toEqual(["primary.test", "second.test"]);
    // Both cool down until T0 + 30 s. The primary first: it failed first.
    vi.setSystemTime(T0 + 1);
    const first = await ask();
    expect(first.status).toBe(502);
    expect(first.hosts).toEqual(["primary.test"]);
    // It failed again: cooled down until T0 + 30.001 s; the second is back sooner.
    expect((await ask()).hosts).toEqual(["second.test"]);
  });

  it("COOLDOWN_FAILURES=0 turns cooldown off; COOLDOWN_MS sets its length", async () => {
    const off = relayOptionsFromEnv({
      UPSTREAM_BASE_URL: PRIMARY,
      FALLBACKS: JSON.stringify([{ baseURL: SECOND }]),
      COOLDOWN_FAILURES: "0",
    });
    const { ask } = relay(primaryDown(() => true), { ...off, maxRetries: 0 });
    for (let i = 0; i < 5; i++) {
      expect((await ask()).hosts).toEqual(["primary.test", "second.test"]);
    }
    const short = relayOptionsFromEnv({
      UPSTREAM_BASE_URL: PRIMARY,
      COOLDOWN_FAILURES: "1",
      COOLDOWN_MS: "2000",
    });
    expect(short.cooldownFailures).toBe(1);
    expect(short.cooldownMs).toBe(2000);
  });
});

describe("the relay's retry budget", () => {
  it("is shared by the relay's calls: once spent, a failing upstream gets no retries", async () => {
    const upstream = fakeUpstream(() => overloaded());
    const app = createRelay({
      upstreams: [{ baseURL: PRIMARY }],
      maxRetries: 3,
      retry: { initialDelayMs: 1, maxDelayMs: 1 },
      retryBudget: createRetryBudget({ ratio: 0, minPerSecond: 2 }),
      fetch: upstream.fetch,
    });
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      statuses.push((await postChat(app, chatBody({ stream: true }))).status);
    }
    expect(statuses).toEqual([502, 502, 502]);
    // Two retries in the budget, all spent by the first call; the others make one request each.
    expect(upstream.seen).toHaveLength(3 + 2);
  });

  it("a relay has one by default: a sustained outage costs (1 + 0.2) requests per call plus the floor", async () => {
    // The budget's clock is Date.now(), which this file fakes (timers stay real): time passes
    // only when the test says so, however loaded the machine. The floor holds 10 retries and
    // refills 10 a second (up to 10 saved), so N calls over `seconds` make at most this many
    // requests, exactly.
    const most = (calls: number, seconds: number) => calls * 1.2 + 10 + 10 * seconds;
    const upstream = fakeUpstream(() => overloaded());
    const app = createRelay({
      upstreams: [{ baseURL: PRIMARY }],
      retry: { initialDelayMs: 1, maxDelayMs: 1 },
      fetch: upstream.fetch,
    });
    const outage = async () => {
      const before = upstream.seen.length;
      for (let i = 0; i < 100; i++) await (await postChat(app, chatBody({ stream: true }))).text();
      return upstream.seen.length - before;
    };
    // maxRetries 2 would make 300; the budget allows 0.2 per call and 10 to start with. It is
    // spent to the last retry (adding fifths in floating point may leave one short).
    const start = Date.now();
    const first = await outage();
    const seconds = (Date.now() - start) / 1000;
    expect(seconds).toBe(0);
    expect(first).toBeLessThanOrEqual(most(100, seconds));
    expect(first).toBeGreaterThanOrEqual(most(100, seconds) - 1);
    // A minute later the floor is back, at one second's worth (not 600 retries); the deposits of
    // a minute ago have faded.
    vi.setSystemTime(start + 60_000);
    const later = await outage();
    expect(later).toBeLessThanOrEqual(most(100, 0));
    expect(later).toBeGreaterThanOrEqual(most(100, 0) - 1);
  });
});
