// Which upstream answered, and after how many requests, once the response committed before the
// answer began: the headers say it as of the commit (they cannot change after), and the final
// values come as an SSE comment before the first content, or in the `chat.completion` body.
import { describe, expect, it } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
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
} from "./helpers.ts";
import { eventsOf, startResumable, streamsRelay } from "./stream_helpers.ts";

const PRIMARY = "https://primary.test/v1";
const SECOND = "https://second.test/v1";
const THIRD = "https://third.test/v1";
/** The status commits after `keepAliveMs` when that is under 1 s: the tests wait 50 ms. */
const KEEP_ALIVE_MS = 50;

/**
 * A relay on `upstreams` whose `slow` upstream answers only when the test releases it (after the
 * response committed); every other answers at once, the primary with a 503.
 */
function relayWithSlow(slow: string, upstreams = [PRIMARY, SECOND]) {
  const release = deferred<Response>();
  const upstream = fakeUpstream((request) => {
    const host = hostOf(request);
    if (host === slow) return release.promise;
    return host === "primary.test" ? overloaded() : answer(host);
  });
  const app = createRelay({
    upstreams: upstreams.map((baseURL) => ({ baseURL })),
    maxRetries: 0,
    retryBudget: false,
    cooldownFailures: 1,
    keepAliveMs: KEEP_ALIVE_MS,
    fetch: upstream.fetch,
  });
  return { app, upstream, release };
}

describe("x-stopstream-upstream and x-stopstream-attempts after the commit", () => {
  it("streaming: a fallback after the commit is told in a comment before the first content", async () => {
    const { app, release } = relayWithSlow("primary.test");
    const response = await postChat(app, chatBody({ stream: true }));
    // Committed while the primary had not answered: the headers say so, as of then.
    expect(response.status).toBe(200);
    expect(response.headers.get("x-stopstream-upstream")).toBe("0");
    expect(response.headers.get("x-stopstream-attempts")).toBe("1");
    release.resolve(overloaded());
    const body = parseSSE(await response.text());
    expect(contentOf(body)).toBe("second.test");
    const told = body.comments.filter((c) => c.text.startsWith("upstream "));
    expect(told).toEqual([{ text: "upstream index=1 attempts=2", beforeData: 0 }]);
  });

  it("streaming: the comment names the configured upstream when cooldown skipped some", async () => {
    const release = deferred<Response>();
    let secondAsked = 0;
    const upstream = fakeUpstream((request) => {
      const host = hostOf(request);
      if (host === "primary.test") return overloaded();
      // The second answers its first call, and holds the next until the test lets it fail.
      if (host === "second.test" && ++secondAsked === 2) return release.promise;
      return answer(host);
    });
    const app = createRelay({
      upstreams: [PRIMARY, SECOND, THIRD].map((baseURL) => ({ baseURL })),
      maxRetries: 0,
      retryBudget: false,
      cooldownFailures: 1,
      keepAliveMs: KEEP_ALIVE_MS,
      fetch: upstream.fetch,
    });
    await (await postChat(app, chatBody({ stream: true }))).text(); // the primary cools down
    const response = await postChat(app, chatBody({ stream: true }));
    // The call's first target is the second upstream (index 1 as configured).
    expect(response.headers.get("x-stopstream-upstream")).toBe("1");
    expect(response.headers.get("x-stopstream-attempts")).toBe("1");
    release.resolve(overloaded());
    const body = parseSSE(await response.text());
    expect(contentOf(body)).toBe("third.test");
    expect(body.comments.map((c) => c.text)).toContain("upstream index=2 attempts=2");
  });

  it("streaming: headers that were right get no comment", async () => {
    const { app } = relayWithSlow("none", [SECOND]);
    const body = parseSSE(await (await postChat(app, chatBody({ stream: true }))).text());
    expect(body.comments.map((c) => c.text)).not.toContainEqual(
      expect.stringMatching(/^upstream /),
    );
  });

  it("non-streaming: the chat.completion carries stopstream: { upstream, attempts }", async () => {
    const { app, release } = relayWithSlow("primary.test");
    const response = await postChat(app, chatBody({ stream: false }));
    expect(response.status).toBe(200);
    // Committed before any upstream answered: no upstream to name yet.
    expect(response.headers.get("x-stopstream-upstream")).toBeNull();
    expect(response.headers.get("x-stopstream-attempts")).toBe("1");
    release.resolve(overloaded());
    const completion = JSON.parse(await response.text());
    expect(completion.object).toBe("chat.completion");
    expect(completion.stopstream).toEqual({ upstream: 1, attempts: 2 });
  });

  it("non-streaming, ready before the commit: the headers and the body agree", async () => {
    const { app } = relayWithSlow("none");
    const response = await postChat(app, chatBody({ stream: false }));
    expect(response.headers.get("x-stopstream-upstream")).toBe("1");
    expect(response.headers.get("x-stopstream-attempts")).toBe("2");
    expect((await response.json() as { stopstream: unknown }).stopstream).toEqual({
      upstream: 1,
      attempts: 2,
    });
  });

  it("resumable: a retry after the commit is told in a comment before event 1", async () => {
    const { app } = streamsRelay("attempt1=first-byte-ms:300;status:503", {
      keepAliveMs: KEEP_ALIVE_MS,
    });
    const response = await startResumable(app);
    expect(response.headers.get("x-stopstream-attempts")).toBe("1");
    expect(response.headers.get("x-stopstream-upstream")).toBe("0");
    const raw = await response.text();
    expect(eventsOf(raw).at(-1)?.data).toBe("[DONE]");
    const lines = raw.split("\n");
    const beforeFirst = lines.slice(0, lines.indexOf("id: 1"));
    expect(beforeFirst).toContain(": upstream index=0 attempts=2");
  });
});
