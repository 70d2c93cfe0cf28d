// Resumable streams against hostile callers: how many may read one stream at once, what a
// reader that never reads costs, and what readers joining in a burst cost in storage writes.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import { relayOptionsFromEnv } from "../../src/relay/env.ts";
import { resolveRelayOptions } from "../../src/relay/option_rules.ts";
import { EventLog } from "../../src/relay/streams/event_log.ts";
import { StreamStore } from "../../src/relay/streams/stream_store.ts";
import {
  cancel,
  eventsOf,
  follow,
  ids,
  readThenDrop,
  runningMeta,
  startResumable,
  streamsRelay,
  streamStub,
} from "./stream_helpers.ts";

interface StreamState {
  status: string;
  events: number;
  bytes: number;
  readers: number;
}

async function stateOf(app: Pick<Hono, "request">, id: string): Promise<StreamState> {
  const response = await follow(app, id, undefined, { accept: "application/json" });
  return (await response.json()) as StreamState;
}

/**
 * The stream's state once `done` holds of it. The readers a stream drops live in its Durable
 * Object, which tells nobody: its state is asked until then (or `timeoutMs` pass).
 */
async function stateWhen(
  app: Pick<Hono, "request">,
  id: string,
  done: (state: StreamState) => boolean,
  timeoutMs = 5_000,
): Promise<StreamState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await stateOf(app, id);
    if (done(state) || Date.now() > deadline) return state;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("readers of one stream", () => {
  it("at most maxStreamReaders at once: one more gets a 429 too_many_readers, never a hang", async () => {
    const { app } = streamsRelay("words=400,word-delay=10", { maxStreamReaders: 3 });
    const creator = await startResumable(app);
    const id = creator.headers.get("x-stopstream-stream-id")!;
    const [first, second] = [await follow(app, id), await follow(app, id, 0)];
    expect([first.status, second.status]).toEqual([200, 200]);
    expect((await stateOf(app, id)).readers).toBe(3);
    const refused = await follow(app, id);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("15");
    const { error } = (await refused.json()) as { error: Record<string, unknown> };
    expect(error).toEqual(expect.objectContaining({
      type: "rate_limit_error",
      code: "too_many_readers",
    }));
    expect(error.message).toMatch(/already has 3 readers.*close one of them/);
    // A reader read to its end gives its place back; so does one whose caller left.
    await cancel(app, id);
    expect(eventsOf(await first.text()).at(-1)?.data).toMatch(/stream_cancelled/);
    await creator.body!.cancel();
    expect((await stateWhen(app, id, (s) => s.readers === 1)).readers).toBe(1);
    const again = [await follow(app, id), await follow(app, id)];
    expect(again.map((r) => r.status)).toEqual([200, 200]);
    await Promise.all([second, ...again].map((r) => r.text()));
  });

  it("a reader that never reads holds a bounded part of the stream, blocks nobody, and is let go", async () => {
    // About 600 KB of events, as fast as the upstream can send them.
    const { app } = streamsRelay("words=3000,word-delay=0", { keepAliveMs: 100 });
    const creator = await startResumable(app);
    const id = creator.headers.get("x-stopstream-stream-id")!;
    await readThenDrop(creator, 1);
    const idle = await follow(app, id); // never read until the end of this test
    const whole = eventsOf(await (await follow(app, id)).text());
    expect(whole.at(-1)?.data).toBe("[DONE]");
    expect(whole.map((e) => e.id)).toEqual(ids(whole.length));
    const { bytes } = await stateOf(app, id);
    // It took nothing for 4 keep-alive intervals: its place is given back.
    expect((await stateWhen(app, id, (s) => s.readers === 0)).readers).toBe(0);
    const held = await idle.text();
    const got = eventsOf(held);
    expect(got.map((e) => e.id)).toEqual(ids(got.length));
    expect(got.at(-1)?.data).not.toBe("[DONE]"); // ended early: a client resumes from there
    expect(held.length).toBeLessThan(bytes / 4);
  });

  it("a reader that never reads does not hold up a cancel for the others", async () => {
    const { app } = streamsRelay("words=400,word-delay=10", { keepAliveMs: 100 });
    const creator = await startResumable(app);
    const id = creator.headers.get("x-stopstream-stream-id")!;
    const idle = await follow(app, id);
    const active = follow(app, id).then(async (r) => eventsOf(await r.text()));
    await readThenDrop(creator, 2);
    const stopped = await cancel(app, id);
    expect(await stopped.json()).toEqual(expect.objectContaining({ cancelled: true }));
    expect((await active).at(-1)?.data).toMatch(/stream_cancelled/);
    expect((await stateWhen(app, id, (s) => s.readers === 0)).readers).toBe(0);
    await idle.body!.cancel();
  });
});

describe("configuration", () => {
  it("maxStreamReaders (binding MAX_STREAM_READERS) is a whole number ≥ 1, 16 by default", () => {
    expect(relayOptionsFromEnv({ MAX_STREAM_READERS: "4" }).maxStreamReaders).toBe(4);
    expect(relayOptionsFromEnv({}).maxStreamReaders).toBeUndefined();
    expect(
      resolveRelayOptions({ upstreams: [{ baseURL: "https://up.test/v1" }] }).maxStreamReaders,
    ).toBe(16);
    expect(() => relayOptionsFromEnv({ MAX_STREAM_READERS: "0" })).toThrow(/MAX_STREAM_READERS/);
    expect(() => relayOptionsFromEnv({ MAX_STREAM_READERS: "many" })).toThrow(
      /MAX_STREAM_READERS/,
    );
    for (const bad of [0, 1.5, -1]) {
      expect(() => createDemoRelay({ streams: env.STREAMS, maxStreamReaders: bad })).toThrow(
        /maxStreamReaders must be a whole number ≥ 1/,
      );
    }
  });
});

describe("storage writes", () => {
  it("readers joining in a burst force one early write per batching window, not one each", async () => {
    const writes = await runInDurableObject(streamStub(`flush-${Date.now()}`), (_, state) => {
      const store = new StreamStore(state.storage);
      store.create(runningMeta("0".repeat(32)));
      const log = new EventLog(store, 1 << 20, 1);
      log.append('data: {"n":0}\n\n');
      log.flushSoon(); // the first event is written at once
      const before = store.writes;
      // Time stands still in workerd while this runs: all of it is one batching window, in
      // which 10 events come and 10 readers join, each after an event.
      for (let i = 1; i <= 10; i++) {
        log.append(`data: {"n":${i}}\n\n`);
        log.flushSoon();
        log.subscribe(() => {});
      }
      return store.writes - before;
    });
    // The first reader's early write, and the next event's: 2, not one per reader.
    expect(writes).toBe(2);
  });
});
