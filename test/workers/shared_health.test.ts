/**
 * Cooldowns shared through the `HEALTH` Durable Object (issue #29, item 4), in workerd: two
 * relays, each with the cooldowns of its own isolate, share one object. What one sees of a
 * failing upstream keeps the other off it, and no request waits for the object. `Date.now()` is
 * faked (timers stay real), so the tests decide when a view is a second old.
 */

import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import type { RelayNamespace } from "../../src/relay/durable.ts";
import { RelayHealth } from "../../src/relay/health/relay_health.ts";
import type { RelayOptions } from "../../src/relay/options.ts";
import {
  answer,
  chatBody,
  fakeUpstream,
  hostOf,
  overloaded,
  parseSSE,
  type SeenRequest,
} from "./helpers.ts";
import { fakeDateFrom } from "../support/fake_date.ts";

const T0 = Date.UTC(2025, 0, 1);

fakeDateFrom(T0);

/** env.HEALTH, counting the requests the relays send it. */
function countedHealth(): { namespace: RelayNamespace; requests: () => number } {
  let requests = 0;
  const namespace: RelayNamespace = {
    idFromName: (name) => env.HEALTH.idFromName(name),
    get: (id) => {
      const stub = env.HEALTH.get(id as ReturnType<typeof env.HEALTH.idFromName>);
      return {
        fetch: (request: Request) => {
          requests++;
          return stub.fetch(request);
        },
      };
    },
  };
  return { namespace, requests: () => requests };
}

/**
 * Two relays ("isolates") on the same two upstreams (each test its own primary, so its own
 * object); the primary answers 503 while `down`. `ask` waits for what the call left running.
 */
function fleet(primary: string, options: RelayOptions = {}) {
  const state = { down: false };
  const upstream = fakeUpstream((request: SeenRequest) =>
    hostOf(request) === new URL(primary).host && state.down ? overloaded() : answer(hostOf(request))
  );
  const relay = () =>
    createRelay({
      upstreams: [{ baseURL: primary }, { baseURL: "https://second.test/v1" }],
      maxRetries: 0,
      retryBudget: false,
      fetch: upstream.fetch,
      ...options,
    });
  const apps = [relay(), relay()];
  /** One streaming call through relay `which`, from client address `caller`. */
  const ask = async (which: 0 | 1, caller = "203.0.113.1") => {
    const before = upstream.seen.length;
    const kept: Promise<unknown>[] = [];
    const ctx = {
      waitUntil: (promise: Promise<unknown>) => kept.push(promise),
      passThroughOnException: () => {},
      props: {},
    };
    const response = await apps[which]!.request(
      "http://relay.test/v1/chat/completions",
      {
        method: "POST",
        headers: { "content-type": "application/json", "cf-connecting-ip": caller },
        body: JSON.stringify(chatBody({ stream: true })),
      },
      undefined,
      ctx,
    );
    parseSSE(await response.text());
    const hosts = upstream.seen.slice(before).map(hostOf);
    await Promise.all(kept);
    return hosts;
  };
  return { state, ask };
}

describe("cooldowns shared through HEALTH", () => {
  it("an upstream failing through relay A is skipped by relay B", async () => {
    const { namespace } = countedHealth();
    const { state, ask } = fleet("https://primary-a.test/v1", { health: namespace });
    expect(await ask(1)).toEqual(["primary-a.test"]);
    state.down = true;
    // Three callers see it fail through A: the cooldown's count (3), as one isolate would.
    for (const caller of ["203.0.113.1", "203.0.113.2", "203.0.113.3"]) {
      expect(await ask(0, caller)).toEqual(["primary-a.test", "second.test"]);
    }
    expect(await ask(0)).toEqual(["second.test"]);
    // B's view is a second old: this call still goes by it, and refreshes it on the side.
    vi.setSystemTime(T0 + 1_000);
    expect(await ask(1, "203.0.113.9")).toEqual(["primary-a.test", "second.test"]);
    for (let i = 0; i < 3; i++) expect(await ask(1, "203.0.113.9")).toEqual(["second.test"]);
  });

  it("without HEALTH each relay learns by itself (today's per-isolate cooldown)", async () => {
    const { state, ask } = fleet("https://primary-b.test/v1");
    state.down = true;
    for (const caller of ["203.0.113.1", "203.0.113.2", "203.0.113.3"]) await ask(0, caller);
    expect(await ask(0)).toEqual(["second.test"]);
    vi.setSystemTime(T0 + 5_000);
    expect(await ask(1)).toEqual(["primary-b.test", "second.test"]);
    expect(await ask(1)).toEqual(["primary-b.test", "second.test"]);
  });

  it("routing waits for no object: within a second, successful calls send it nothing", async () => {
    const { namespace, requests } = countedHealth();
    const { ask } = fleet("https://primary-c.test/v1", { health: namespace });
    expect(await ask(0)).toEqual(["primary-c.test"]);
    // The first call asked for the view (its outcome went with the answer's refresh or after).
    const first = requests();
    expect(first).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < 5; i++) expect(await ask(0)).toEqual(["primary-c.test"]);
    expect(requests()).toBe(first);
    // A second later, the next call refreshes the view and carries the successes noted since.
    vi.setSystemTime(T0 + 1_000);
    await ask(0);
    expect(requests()).toBe(first + 1);
  });

  it("an unreachable object leaves the relay on its own cooldowns", async () => {
    const broken: RelayNamespace = {
      idFromName: (name) => name,
      get: () => ({ fetch: () => Promise.reject(new Error("object unreachable")) }),
    };
    const { state, ask } = fleet("https://primary-d.test/v1", { health: broken });
    state.down = true;
    for (const caller of ["203.0.113.1", "203.0.113.2", "203.0.113.3"]) {
      expect(await ask(0, caller)).toEqual(["primary-d.test", "second.test"]);
    }
    expect(await ask(0)).toEqual(["second.test"]);
  });
});

describe("RelayHealth, the Durable Object", () => {
  const report = (outcomes: unknown, shape: Record<string, unknown> = {}) =>
    new Request("https://relay-health/report", {
      method: "POST",
      body: JSON.stringify({ upstreams: 2, failures: 2, cooldownMs: 10_000, outcomes, ...shape }),
    });

  it("counts every isolate's failures by the cooldown's rules and answers the time left", async () => {
    const health = new RelayHealth();
    const state = async (outcomes: unknown) =>
      (await (await health.fetch(report(outcomes))).json()) as { remainingMs: number[] };
    expect(await state([[0, "failure", "a", 0]])).toEqual({ remainingMs: [0, 0] });
    vi.setSystemTime(T0 + 1_000);
    expect(await state([[0, "failure", "b", 0]])).toEqual({ remainingMs: [10_000, 0] });
    vi.setSystemTime(T0 + 4_000);
    expect(await state([])).toEqual({ remainingMs: [7_000, 0] });
    vi.setSystemTime(T0 + 11_000);
    expect(await state([])).toEqual({ remainingMs: [0, 0] });
    // The probe failed: cooling again at once.
    expect(await state([[0, "failure", "c", 0]])).toEqual({ remainingMs: [10_000, 0] });
    // An isolate whose view was stale found it working again: in service.
    vi.setSystemTime(T0 + 12_000);
    expect(await state([[0, "success", "d", 0]])).toEqual({ remainingMs: [0, 0] });
  });

  it("a success noted before the cooldown opened, and sent late, does not end it", async () => {
    const health = new RelayHealth();
    const state = async (outcomes: unknown) =>
      (await (await health.fetch(report(outcomes))).json()) as { remainingMs: number[] };
    await state([[0, "failure", "a", 0]]);
    vi.setSystemTime(T0 + 500);
    expect(await state([[0, "failure", "b", 0]])).toEqual({ remainingMs: [10_000, 0] });
    vi.setSystemTime(T0 + 1_000);
    expect(await state([[0, "success", "c", 900]])).toEqual({ remainingMs: [9_500, 0] });
    expect(await state([[0, "success", "c", 100]])).toEqual({ remainingMs: [0, 0] });
  });

  it("a success resets the count; other settings start afresh", async () => {
    const health = new RelayHealth();
    const state = async (outcomes: unknown, shape?: Record<string, unknown>) =>
      (await (await health.fetch(report(outcomes, shape))).json()) as { remainingMs: number[] };
    await state([[1, "failure", "a", 0], [1, "success", "a", 0]]);
    expect(await state([[1, "failure", "b", 0]])).toEqual({ remainingMs: [0, 0] });
    expect(await state([[1, "failure", "c", 0]], { failures: 3 })).toEqual({ remainingMs: [0, 0] });
  });

  it("refuses a malformed report with a 400", async () => {
    const health = new RelayHealth();
    for (
      const body of [
        "not json",
        "{}",
        JSON.stringify({
          upstreams: 1,
          failures: 3,
          cooldownMs: 1,
          outcomes: [[1, "failure", "a", 0]],
        }),
      ]
    ) {
      const response = await health.fetch(
        new Request("https://relay-health/report", { method: "POST", body }),
      );
      expect(response.status).toBe(400);
    }
  });
});
