// Resumable streams in workerd: one nobody reads is stopped after `resumeUnreadMs`, so an answer
// nobody reads and nobody cancels does not run (and cost) until its byte limit. The clock is
// Date.now(), faked (timers stay real); the heartbeat alarm is run by hand.
import { runDurableObjectAlarm } from "cloudflare:test";
import type { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  eventsOf,
  faultStats,
  follow,
  readThenDrop,
  startResumable,
  streamsRelay,
  streamStub,
} from "./stream_helpers.ts";

afterEach(() => {
  vi.useRealTimers();
});

const UNREAD_MS = 120_000;

interface State {
  status: string;
  readers: number;
}

async function state(app: Hono, id: string): Promise<State> {
  const response = await follow(app, id, undefined, { accept: "application/json" });
  return await response.json() as State;
}

/** A reader's cancel reaches the object asynchronously: its state says when it has. */
async function noReaders(app: Hono, id: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await state(app, id)).readers === 0) return;
    await scheduler.wait(10);
  }
  throw new Error("the reader never detached");
}

/** A resumable stream started on a faked `Date.now()`, which was `t0` then. */
async function started(): Promise<
  ReturnType<typeof streamsRelay> & { response: Response; id: string; t0: number }
> {
  vi.useFakeTimers({ toFake: ["Date"] });
  const t0 = Date.now();
  const relay = streamsRelay("words=2000,word-delay=20", { resumeUnreadMs: UNREAD_MS });
  const response = await startResumable(relay.app);
  return { ...relay, response, id: response.headers.get("x-stopstream-stream-id")!, t0 };
}

/** {@linkcode started}, `read` events read, then left with no reader. */
async function leftUnread(read: number): ReturnType<typeof started> {
  const stream = await started();
  await readThenDrop(stream.response, read);
  await noReaders(stream.app, stream.id);
  return stream;
}

describe("a resumable stream nobody reads", () => {
  it("is stopped after resumeUnreadMs with no reader: the upstream cancelled, a later reader gets stream_cancelled", async () => {
    const { app, testId, id, t0 } = await leftUnread(3);
    const stub = streamStub(id);
    // Just before its time: the heartbeat keeps it running.
    vi.setSystemTime(t0 + UNREAD_MS - 1_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await state(app, id)).status).toBe("running");
    expect((await faultStats(testId)).cancelled).toBe(0);
    vi.setSystemTime(t0 + UNREAD_MS + 1_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    // The upstream saw its connection close before the end of its answer.
    expect(await faultStats(testId, { cancelled: 1 })).toEqual({
      requests: 1,
      cancelled: 1,
      completed: 0,
    });
    expect((await state(app, id)).status).toBe("cancelled");
    const later = eventsOf(await (await follow(app, id)).text());
    expect(later.some((e) => e.data === "[DONE]")).toBe(false);
    const error = (JSON.parse(later.at(-1)!.data) as { error: Record<string, unknown> }).error;
    expect(error).toEqual(expect.objectContaining({ code: "stream_cancelled", type: "cancelled" }));
    expect(error.message).toMatch(/no reader/);
  });

  it("a stream with a reader attached runs on, however long", async () => {
    const { app, testId, id, t0, response } = await started();
    const reader = response.body!.getReader();
    await reader.read();
    vi.setSystemTime(t0 + 10 * UNREAD_MS);
    expect(await runDurableObjectAlarm(streamStub(id))).toBe(true);
    expect((await state(app, id)).status).toBe("running");
    expect((await faultStats(testId)).cancelled).toBe(0);
    await reader.cancel();
  });

  it("a reader who comes back in time restarts the count", async () => {
    const { app, testId, id, t0 } = await leftUnread(2);
    vi.setSystemTime(t0 + UNREAD_MS - 1_000);
    await readThenDrop(await follow(app, id, 2), 1); // back, then gone again
    await noReaders(app, id);
    vi.setSystemTime(t0 + UNREAD_MS + 1_000);
    expect(await runDurableObjectAlarm(streamStub(id))).toBe(true);
    expect((await state(app, id)).status).toBe("running");
    vi.setSystemTime(t0 + 2 * UNREAD_MS);
    expect(await runDurableObjectAlarm(streamStub(id))).toBe(true);
    expect(await faultStats(testId, { cancelled: 1 })).toEqual(
      expect.objectContaining({ cancelled: 1 }),
    );
  });
});
