// Resumable streams in workerd: stop, limits, auth, and what a restart of the Durable Object
// leaves for a resume.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import { relayOptionsFromEnv } from "../../src/relay/env.ts";
import { StreamStore } from "../../src/relay/streams/stream_store.ts";
import {
  cancel,
  eventsOf,
  faultStats,
  follow,
  ids,
  readThenDrop,
  runningMeta,
  startResumable,
  streamsRelay,
  streamStub,
  withoutComments,
} from "./stream_helpers.ts";
import { chatBody, postChat } from "./helpers.ts";

function errorOf(data: string): { message: string; type: string; code: string } {
  return (JSON.parse(data) as { error: { message: string; type: string; code: string } }).error;
}

describe("stop still means stop", () => {
  it("a cancel closes the upstream connection and ends every reader with an error event, no [DONE]", async () => {
    const { app, testId } = streamsRelay("words=400,word-delay=10");
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    await readThenDrop(response, 3);
    const readers = [await follow(app, id), await follow(app, id, 2)];
    const bodies = readers.map((r) => r.text());
    const stopped = await cancel(app, id);
    expect(stopped.status).toBe(200);
    expect(await stopped.json()).toEqual(
      expect.objectContaining({ id, object: "stream", status: "cancelled", cancelled: true }),
    );
    // The upstream saw its connection close before the end of its answer.
    expect(await faultStats(testId, { cancelled: 1 })).toEqual({
      requests: 1,
      cancelled: 1,
      completed: 0,
    });
    const [all, tail] = await Promise.all(bodies.map(async (b) => eventsOf(await b)));
    expect(all!.map((e) => e.id)).toEqual(ids(all!.length));
    expect(tail).toEqual(all!.slice(2));
    expect(all!.some((e) => e.data === "[DONE]")).toBe(false);
    const last = errorOf(all!.at(-1)!.data);
    expect(last.code).toBe("stream_cancelled");
    expect(last.message).toMatch(/stopped by a cancel request/);
    // Stopped early: far fewer than the 400 words.
    expect(all!.length).toBeLessThan(200);
    // A reader who comes later sees the same end.
    expect(eventsOf(await (await follow(app, id)).text())).toEqual(all);
  });

  // Whether the two overlap inside the object is the runtime's to decide (they did in about half
  // the runs before the fix); whenever they do, only one may say it stopped the run.
  it("two cancels at once: only the one that stopped the run says cancelled: true", async () => {
    const { app } = streamsRelay("words=400,word-delay=20");
    const running = await startResumable(app);
    const id = running.headers.get("x-stopstream-stream-id")!;
    const reader = running.body!.getReader();
    await reader.read(); // the answer is under way, and this reader stays
    const answers = await Promise.all([cancel(app, id), cancel(app, id)]);
    await reader.cancel();
    const said = await Promise.all(
      answers.map(async (a) => ((await a.json()) as { cancelled: boolean; status: string })),
    );
    expect(said.map((s) => s.status)).toEqual(["cancelled", "cancelled"]);
    expect(said.map((s) => s.cancelled).sort()).toEqual([false, true]);
  });

  it("cancel is idempotent: a second cancel, or one of a finished stream, is a 200 that says so", async () => {
    const { app } = streamsRelay("words=400,word-delay=10");
    const running = await startResumable(app);
    const id = running.headers.get("x-stopstream-stream-id")!;
    await readThenDrop(running, 1);
    expect(((await (await cancel(app, id)).json()) as { cancelled: boolean }).cancelled).toBe(true);
    const again = await cancel(app, id);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(
      expect.objectContaining({ status: "cancelled", cancelled: false }),
    );
    const { app: other } = streamsRelay();
    const finished = await startResumable(other);
    const doneId = finished.headers.get("x-stopstream-stream-id")!;
    const original = withoutComments(await finished.text());
    const late = await cancel(other, doneId);
    expect(late.status).toBe(200);
    expect(await late.json()).toEqual(
      expect.objectContaining({ status: "completed", cancelled: false }),
    );
    // Nothing changed: the answer still replays whole, [DONE] included.
    expect(withoutComments(await (await follow(other, doneId)).text())).toBe(original);
  });

  it("a caller who leaves before the answer begins stops the upstream, and nothing is kept", async () => {
    const { app, testId } = streamsRelay("first-byte-ms=5000");
    const caller = new AbortController();
    const pending = startResumable(app, {}, caller.signal).catch((error: unknown) => error);
    expect((await faultStats(testId, { requests: 1 })).requests).toBe(1);
    caller.abort();
    await pending;
    expect(await faultStats(testId, { cancelled: 1 })).toEqual({
      requests: 1,
      cancelled: 1,
      completed: 0,
    });
  });
});

describe("limits", () => {
  it("a stream is deleted by its alarm resumeTtlMs after it ends; then it is a 404", async () => {
    const { app } = streamsRelay("", { resumeTtlMs: 60_000 });
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    await response.text();
    const status = await (await follow(app, id, undefined, { accept: "application/json" })).json();
    const { ended_at, expires_at } = status as { ended_at: number; expires_at: number };
    expect(expires_at - ended_at).toBe(60);
    const stub = streamStub(id);
    const alarm = await runInDurableObject(stub, (_, state) => state.storage.getAlarm());
    expect(Math.floor((alarm as number) / 1000)).toBe(expires_at);
    // Before its time the alarm keeps the stream (and sets itself again).
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await follow(app, id)).status).toBe(200);
    // At its time it deletes everything.
    await runInDurableObject(stub, (_, state) => {
      state.storage.sql.exec("UPDATE stream SET expires = ?", Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const tables = await runInDurableObject(
      stub,
      (_, state) => state.storage.sql.exec("SELECT name FROM sqlite_master").toArray(),
    );
    expect(tables).toEqual([]);
    expect(await runInDurableObject(stub, (_, state) => state.storage.getAlarm())).toBeNull();
    const gone = await follow(app, id);
    expect(gone.status).toBe(404);
    expect((await gone.json()) as unknown).toEqual({
      error: expect.objectContaining({ code: "stream_not_found" }),
    });
    expect((await cancel(app, id)).status).toBe(404);
  });

  it("an expired stream is a 404 even before its alarm has run", async () => {
    const { app } = streamsRelay("", { resumeTtlMs: 1 });
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    await response.text();
    await new Promise((resolve) => setTimeout(resolve, 5)); // past the 1 ms retention
    expect((await follow(app, id)).status).toBe(404);
  });

  it("at maxStreamBytes the stream ends with an error event and the upstream is cancelled", async () => {
    const { app, testId } = streamsRelay("words=2000,word-delay=1", { maxStreamBytes: 4000 });
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    const raw = withoutComments(await response.text());
    const events = eventsOf(raw);
    expect(events.map((e) => e.id)).toEqual(ids(events.length));
    expect(events.some((e) => e.data === "[DONE]")).toBe(false);
    expect(errorOf(events.at(-1)!.data).code).toBe("stream_too_large");
    // Everything before the error event fits the limit.
    const content = raw.slice(0, raw.lastIndexOf(`id: ${events.length}\n`));
    expect(new TextEncoder().encode(content).length).toBeLessThanOrEqual(4000);
    expect(await faultStats(testId, { cancelled: 1 })).toEqual({
      requests: 1,
      cancelled: 1,
      completed: 0,
    });
    expect(eventsOf(await (await follow(app, id)).text())).toEqual(events);
  });

  it("while the call runs an alarm keeps the object alive; it sets itself again", async () => {
    const { app } = streamsRelay("stall-after=2,stall-ms=3000");
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    await readThenDrop(response, 2);
    const stub = streamStub(id);
    const first = await runInDurableObject(stub, (_, state) => state.storage.getAlarm());
    expect(first).toBeGreaterThan(Date.now() + 20_000);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const next = await runInDurableObject(stub, (_, state) => state.storage.getAlarm());
    expect(next).toBeGreaterThan(Date.now() + 20_000);
    const status = await (await follow(app, id, undefined, { accept: "application/json" })).json();
    expect((status as { status: string }).status).toBe("running");
    await cancel(app, id);
  });
});

describe("auth", () => {
  it("with RELAY_KEYS, resume and cancel take the key that created the stream: another is a 404", async () => {
    const { app } = streamsRelay("words=300,word-delay=5", {
      keys: ["key-alpha-1", "key-bravo-2"],
    });
    const creator = { authorization: "Bearer key-alpha-1" };
    const other = { authorization: "Bearer key-bravo-2" };
    const response = await startResumable(app, creator);
    const id = response.headers.get("x-stopstream-stream-id")!;
    await readThenDrop(response, 2);
    const foreign = await follow(app, id, 0, other);
    expect(foreign.status).toBe(404);
    const unknown = await follow(app, "0".repeat(32), 0, other);
    expect(await foreign.json()).toEqual(await unknown.json());
    expect((await follow(app, id, 0, {})).status).toBe(401);
    expect((await follow(app, id, 0, { authorization: "Bearer nope" })).status).toBe(401);
    expect((await cancel(app, id, other)).status).toBe(404);
    expect((await cancel(app, id)).status).toBe(401);
    const mine = await follow(app, id, 2, creator);
    expect(mine.status).toBe(200);
    expect(eventsOf(await mine.text()).at(-1)?.data).toBe("[DONE]");
    // The object keeps a hash of the key, never the key.
    const rows = await runInDurableObject(streamStub(id), (_, state) => [
      ...state.storage.sql.exec("SELECT * FROM stream").toArray(),
    ]);
    expect(rows[0]?.owner).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain("key-alpha-1");
  });

  it("no upstream key and no request body reach the object's storage", async () => {
    const secret = "sk-upstream-secret-0123456789";
    // The demo echoes the last user message; the system prompt is the body's alone.
    const systemPrompt = "a-private-system-prompt-93af";
    const { app } = streamsRelay("", {}, { apiKey: secret });
    const response = await postChat(
      app,
      chatBody({
        stream: true,
        messages: [{ role: "system", content: systemPrompt }, { role: "user", content: "hi" }],
      }),
      { headers: { "x-stopstream-resumable": "true" } },
    );
    const id = response.headers.get("x-stopstream-stream-id")!;
    expect(await response.text()).toContain("data: [DONE]");
    // Every row of every table (blobs decoded), and the key-value storage.
    const stored = await runInDurableObject(streamStub(id), async (_, state) => {
      const decoder = new TextDecoder();
      const tables = state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'")
        .toArray().map((row: Record<string, unknown>) => String(row.name))
        .filter((name: string) => !name.startsWith("_cf"));
      const rows = tables.flatMap((name: string) =>
        state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray().map((
          row: Record<string, unknown>,
        ) => Object.values(row).map((v) => v instanceof ArrayBuffer ? decoder.decode(v) : v))
      );
      return JSON.stringify([tables, rows, [...(await state.storage.list())]]);
    });
    expect(stored).toContain('"batches"');
    expect(stored).toContain("chat.completion.chunk");
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(systemPrompt);
  });
});

describe("a restart of the object in the middle of a stream", () => {
  /** Storage as a running stream leaves it when its object restarts: running, no call. */
  async function crashed(batches: string[][]): Promise<{ id: string; app: Hono }> {
    const { app } = streamsRelay();
    const id = crypto.randomUUID().replaceAll("-", "");
    await runInDurableObject(streamStub(id), async (_, state) => {
      const store = new StreamStore(state.storage);
      const now = Date.now();
      store.create(runningMeta(id, now));
      let next = 1;
      for (const batch of batches) {
        const first = next;
        const text = batch.map((data) => `id: ${next++}\ndata: ${data}\n\n`).join("");
        store.append({ first, last: next - 1, data: new TextEncoder().encode(text) });
      }
      await state.storage.setAlarm(now + 30_000);
    });
    return { id, app };
  }

  it("a resume gets every stored event, then an error event numbered after them, no [DONE]", async () => {
    const chunk = (n: number) => JSON.stringify({ choices: [{ delta: { content: `w${n}` } }] });
    const { id, app } = await crashed([[chunk(1), chunk(2)], [chunk(3)]]);
    const resumed = eventsOf(await (await follow(app, id, 2)).text());
    expect(resumed.map((e) => e.id)).toEqual(["3", "4"]);
    expect(resumed[0]?.data).toBe(chunk(3));
    const error = errorOf(resumed[1]!.data);
    expect(error.code).toBe("stream_interrupted");
    expect(error.message).toMatch(/restarted/);
    const whole = eventsOf(await (await follow(app, id)).text());
    expect(whole.map((e) => e.id)).toEqual(["1", "2", "3", "4"]);
    const status = await (await follow(app, id, undefined, { accept: "application/json" })).json();
    expect(status).toEqual(expect.objectContaining({ status: "failed", events: 4 }));
  });

  it("its heartbeat alarm ends it the same way and schedules the expiry", async () => {
    const { id, app } = await crashed([["{}"]]);
    expect(await runDurableObjectAlarm(streamStub(id))).toBe(true);
    const status = await (await follow(app, id, undefined, { accept: "application/json" })).json();
    expect(status).toEqual(expect.objectContaining({ status: "failed", events: 2 }));
    const alarm = await runInDurableObject(streamStub(id), (_, state) => state.storage.getAlarm());
    expect(Math.floor((alarm as number) / 1000)).toBe(
      (status as { expires_at: number }).expires_at,
    );
  });
});

describe("configuration", () => {
  it("relayOptionsFromEnv reads STREAMS, RESUME_TTL_MS and MAX_STREAM_BYTES, and refuses bad values", () => {
    const options = relayOptionsFromEnv({
      STREAMS: env.STREAMS,
      RESUME_TTL_MS: "60000",
      MAX_STREAM_BYTES: "1048576",
    });
    expect(options.streams).toBe(env.STREAMS);
    expect(options.resumeTtlMs).toBe(60_000);
    expect(options.maxStreamBytes).toBe(1_048_576);
    expect(relayOptionsFromEnv({ STREAMS: "not a namespace" }).streams).toBeUndefined();
    expect(() => relayOptionsFromEnv({ RESUME_TTL_MS: "10m" })).toThrow(/RESUME_TTL_MS/);
    expect(() => relayOptionsFromEnv({ MAX_STREAM_BYTES: "-1" })).toThrow(/MAX_STREAM_BYTES/);
  });

  it("createRelay refuses streams that are not a namespace, and non-positive limits", () => {
    expect(() => createDemoRelay({ streams: {} as never })).toThrow(TypeError);
    expect(() => createDemoRelay({ streams: env.STREAMS, resumeTtlMs: 0 })).toThrow(/resumeTtlMs/);
    expect(() => createDemoRelay({ streams: env.STREAMS, maxStreamBytes: -5 })).toThrow(
      /maxStreamBytes/,
    );
  });
});
