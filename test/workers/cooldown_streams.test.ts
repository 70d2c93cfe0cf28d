/**
 * Cooldown and resumable streams: a resumable stream's call runs in its Durable Object, out of
 * the isolate's sight, yet it skips the upstreams the isolate knows to be cooling down.
 */

import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import { chatBody, postChat } from "./helpers.ts";
import { contentOfEvents, eventsOf, startResumable } from "./stream_helpers.ts";

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
});
