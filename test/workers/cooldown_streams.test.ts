/**
 * Cooldown and resumable streams: a resumable stream's call runs in its Durable Object, out of
 * the isolate's sight, yet it skips the upstreams the isolate knows to be cooling down, probes
 * one whose cooldown is over, and teaches the isolate what its start response reports.
 */

import { env } from "cloudflare:workers";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import { chatBody, postChat } from "./helpers.ts";
import { contentOfEvents, eventsOf, faultStats, startResumable } from "./stream_helpers.ts";

afterEach(() => {
  vi.useRealTimers();
});

describe("cooldown with resumable streams", () => {
  it("a resumable stream skips the upstream the isolate has cooled down", async () => {
    const test = `${inject("faultOrigin")}/t/cooldown-streams-${Date.now()}`;
    const app = createRelay({
      upstreams: [{ baseURL: `${test}/f/status=503/v1` }, { baseURL: `${test}/v1` }],
      streams: env.STREAMS,
      maxRetries: 0,
      cooldownFailures: 2,
      retryBudget: false,
    });
    for (let i = 0; i < 2; i++) {
      const response = await postChat(app, chatBody({ stream: true }));
      expect(response.headers.get("x-stopstream-attempts")).toBe("2");
      await response.text();
    }
    // Cooled down: an ordinary call and a resumable one both go straight to the second.
    const plain = await postChat(app, chatBody({ stream: true }));
    expect(plain.headers.get("x-stopstream-attempts")).toBe("1");
    await plain.text();
    const resumable = await startResumable(app);
    expect(resumable.status).toBe(200);
    expect(resumable.headers.get("x-stopstream-stream-id")).not.toBeNull();
    expect(resumable.headers.get("x-stopstream-attempts")).toBe("1");
    expect(resumable.headers.get("x-stopstream-upstream")).toBe("1");
    expect(contentOfEvents(eventsOf(await resumable.text()))).not.toBe("");
  });

  /** A relay whose primary fails its first request only, and a resumable request to it. */
  function primaryFailsOnce(name: string) {
    const run = `${inject("faultOrigin")}/t/${name}`;
    const app = createRelay({
      upstreams: [{ baseURL: `${run}-primary/f/attempt1=status:503/v1` }, {
        baseURL: `${run}-second/v1`,
      }],
      streams: env.STREAMS,
      maxRetries: 0,
      cooldownFailures: 1,
      cooldownMs: 30_000,
      retryBudget: false,
    });
    /** A resumable request: the configured upstream that answered. */
    const resumable = async () => {
      const response = await startResumable(app);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-stopstream-outcomes")).toBeNull(); // for the isolate only
      expect(eventsOf(await response.text()).at(-1)?.data).toBe("[DONE]");
      return response.headers.get("x-stopstream-upstream");
    };
    const primaryRequests = async () => (await faultStats(`${name}-primary`)).requests;
    return { app, resumable, primaryRequests };
  }

  it("with resumable traffic only, an upstream whose cooldown is over is probed, and comes back", async () => {
    // The clock is Date.now(), faked (timers stay real): the test decides when 30 s are over.
    vi.useFakeTimers({ toFake: ["Date"] });
    const t0 = Date.now();
    const { app, resumable, primaryRequests } = primaryFailsOnce(`cooldown-probe-${t0}`);
    const plain = await postChat(app, chatBody({ stream: true }));
    expect(plain.headers.get("x-stopstream-upstream")).toBe("1");
    await plain.text(); // the primary's 503: it cools down
    expect(await resumable()).toBe("1"); // skipped
    vi.setSystemTime(t0 + 30_000);
    expect(await resumable()).toBe("0"); // the probe: it answered, so it is back in service
    expect(await resumable()).toBe("0");
    expect(await primaryRequests()).toBe(3);
  });

  it("a resumable call's failure counts like any other: the upstream cools down", async () => {
    const { resumable, primaryRequests } = primaryFailsOnce(`cooldown-taught-${Date.now()}`);
    expect(await resumable()).toBe("1"); // the primary's 503, reported by the start response
    expect(await resumable()).toBe("1"); // skipped
    expect(await primaryRequests()).toBe(1);
  });
});
