// Resumable streams in workerd: the relay with its `RelayStream` Durable Object (the STREAMS
// binding of wrangler.toml), the upstream a real loopback socket (the fault server).
import { runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { chatBody, postChat } from "./helpers.ts";
import {
  cancel,
  contentOfEvents,
  eventsOf,
  expectResumedRest,
  faultStats,
  follow,
  ids,
  readThenDrop,
  startResumable,
  streamsRelay,
  streamStub,
  withoutComments,
} from "./stream_helpers.ts";

describe("a resumable stream", () => {
  it("carries x-stopstream-stream-id and numbers every event from 1, [DONE] included", async () => {
    const { app, testId } = streamsRelay();
    const response = await startResumable(app);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-stopstream-stream-id")).toMatch(/^[0-9a-f]{32}$/);
    const raw = await response.text();
    const events = eventsOf(raw);
    expect(events.length).toBeGreaterThan(10);
    expect(events.map((e) => e.id)).toEqual(ids(events.length));
    expect(events.at(-1)?.data).toBe("[DONE]");
    expect(contentOfEvents(events)).toMatch(/^You said: "hello relay"\./);
    // Keep-alive comments carry no id: each is a line of its own, no blank line after it.
    const comments = raw.split("\n").filter((line) => line.startsWith(":"));
    expect(comments.length).toBeGreaterThan(0);
    for (const comment of comments) expect(comment).toBe(": keep-alive");
    expect(raw).not.toMatch(/^: keep-alive\n\n/m);
    expect(await faultStats(testId, { completed: 1 })).toEqual({
      requests: 1,
      cancelled: 0,
      completed: 1,
    });
  });

  it("its chunks are the live stream's: the upstream's own id on every one", async () => {
    const { app } = streamsRelay("words=200");
    const live = eventsOf(await (await postChat(app, chatBody({ stream: true }))).text());
    const stored = eventsOf(await (await startResumable(app)).text());
    const chunkIds = (events: typeof live) =>
      new Set(events.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data).id));
    expect(chunkIds(stored)).toEqual(chunkIds(live));
    expect([...chunkIds(live)]).toEqual([expect.stringMatching(/^chatcmpl-demo-/)]);
    expect(contentOfEvents(stored)).toBe(contentOfEvents(live));
  });

  it("two streams get different ids", async () => {
    const { app } = streamsRelay();
    const [a, b] = await Promise.all([startResumable(app), startResumable(app)]);
    const idA = a.headers.get("x-stopstream-stream-id");
    expect(idA).not.toBe(b.headers.get("x-stopstream-stream-id"));
    await Promise.all([a.text(), b.text()]);
  });

  it("without the header, or without the binding, is today's stream: no stream id, no event ids", async () => {
    const { app, testId } = streamsRelay();
    const plain = await postChat(app, chatBody({ stream: true }));
    expect(plain.headers.get("x-stopstream-stream-id")).toBeNull();
    const raw = await plain.text();
    expect(raw).toContain("data: [DONE]");
    expect(raw).not.toMatch(/^id:/m);
    const { app: unbound } = streamsRelay("", {}, { bound: false });
    const refused = await startResumable(unbound);
    expect(refused.headers.get("x-stopstream-stream-id")).toBeNull();
    expect(await refused.text()).not.toMatch(/^id:/m);
    expect((await faultStats(testId, { completed: 1 })).requests).toBe(1);
    // Without the binding the routes do not exist either.
    expect((await follow(unbound, "0".repeat(32))).status).toBe(404);
  });

  it("the Worker of wrangler.toml has the STREAMS binding, and exposes the id to browsers", async () => {
    const response = await exports.default.fetch("http://relay.test/v1/chat/completions", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: "https://app.example",
        "x-stopstream-resumable": "true",
      },
      body: JSON.stringify(chatBody({ stream: true })),
    });
    const id = response.headers.get("x-stopstream-stream-id");
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(response.headers.get("access-control-expose-headers")).toContain(
      "x-stopstream-stream-id",
    );
    const raw = await response.text();
    const replay = await exports.default.fetch(`http://relay.test/v1/streams/${id}`);
    expect(withoutComments(await replay.text())).toBe(withoutComments(raw));
  });
});

describe("resume and follow", () => {
  it("a caller that drops keeps the upstream running; a resume after N events gets exactly the rest", async () => {
    const { app, testId } = streamsRelay("word-delay=10");
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    const first = await readThenDrop(response, 5);
    const whole = await expectResumedRest(app, id, first, 5);
    expect(whole.map((e) => e.id)).toEqual(ids(whole.length));
    // One upstream request, which ran to its end although its first caller left.
    expect(await faultStats(testId, { completed: 1 })).toEqual({
      requests: 1,
      cancelled: 0,
      completed: 1,
    });
  });

  it("whatever a reader was sent is already stored", async () => {
    const { app } = streamsRelay("word-delay=10");
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let raw = "";
    for (let checks = 0; checks < 8;) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
      const seen = Math.max(0, ...eventsOf(raw).map((e) => Number(e.id)));
      if (seen === 0) continue;
      const stored = await runInDurableObject(streamStub(id), (_, state) =>
        Number(
          state.storage.sql.exec("SELECT max(last) AS last FROM batches").toArray()[0]?.last,
        ));
      expect(stored).toBeGreaterThanOrEqual(seen);
      checks++;
    }
    await reader.cancel();
  });

  it("several readers at once get the same events in the same order", async () => {
    const { app } = streamsRelay("word-delay=10");
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    await readThenDrop(response, 2);
    const readers = await Promise.all([follow(app, id), follow(app, id, 0), follow(app, id, 1)]);
    const [a, b, c] = await Promise.all(readers.map(async (r) => eventsOf(await r.text())));
    expect(a!.map((e) => e.id)).toEqual(ids(a!.length));
    expect(b).toEqual(a);
    expect(c).toEqual(a!.slice(1));
    expect(a!.at(-1)?.data).toBe("[DONE]");
  });

  it("a finished stream replays whole, as often as asked, and ?after= works like Last-Event-ID", async () => {
    const { app } = streamsRelay();
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    const original = withoutComments(await response.text());
    expect(withoutComments(await (await follow(app, id)).text())).toBe(original);
    expect(withoutComments(await (await follow(app, id)).text())).toBe(original);
    const events = eventsOf(original);
    const tail = await app.request(`http://relay.test/v1/streams/${id}?after=7`);
    expect(eventsOf(await tail.text())).toEqual(events.slice(7));
    // The header wins over the query: it is what an EventSource sends when it reconnects.
    const both = await follow(app, id, 9, {});
    const viaBoth = await app.request(`http://relay.test/v1/streams/${id}?after=2`, {
      headers: { "last-event-id": "9" },
    });
    expect(eventsOf(await viaBoth.text())).toEqual(eventsOf(await both.text()));
    // At or after the last event: nothing will come, so a 204 (an EventSource stops there).
    const last = events.length;
    for (const after of [last, last + 1]) {
      const done = await follow(app, id, after);
      expect(done.status).toBe(204);
      expect(done.headers.get("x-stopstream-stream-id")).toBe(id);
      expect(await done.text()).toBe("");
    }
  });

  it("a follower of a silent stream gets keep-alive comments, without ids", async () => {
    const { app } = streamsRelay("stall-after=3,stall-ms=600", { keepAliveMs: 50 });
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    await readThenDrop(response, 2);
    const raw = await (await follow(app, id, 2)).text();
    const lines = raw.split("\n");
    const afterThird = lines.slice(lines.indexOf("id: 3") + 1);
    const keepAlives = afterThird.filter((line) => line === ": keep-alive");
    expect(keepAlives.length).toBeGreaterThanOrEqual(3);
    expect(eventsOf(raw).at(-1)?.data).toBe("[DONE]");
  });

  it("reports its state as JSON to Accept: application/json, and stores events in batches", async () => {
    const { app } = streamsRelay("words=60,word-delay=10");
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    const events = eventsOf(await response.text());
    const status = await follow(app, id, undefined, { accept: "application/json" });
    const body = await status.json() as Record<string, number | string | null>;
    expect(body).toEqual(expect.objectContaining({
      id,
      object: "stream",
      status: "completed",
      events: events.length,
    }));
    expect(body.expires_at as number).toBe((body.ended_at as number) + 600);
    // Not one write per token: words 10 ms apart (a network chunk each) share writes.
    expect(body.storage_writes as number).toBeLessThan(events.length / 2);
    const rows = await runInDurableObject(
      streamStub(id),
      (_, state) => state.storage.sql.exec("SELECT count(*) AS n FROM batches").toArray()[0]?.n,
    );
    expect(rows as number).toBeLessThan(events.length / 2);
  });
});

describe("errors", () => {
  it("unknown or malformed ids are 404 in OpenAI's error shape; a bad Last-Event-ID is 400", async () => {
    const { app } = streamsRelay();
    for (const id of ["0123456789abcdef0123456789abcdef", "not-an-id", "A".repeat(32)]) {
      const response = await follow(app, id);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        error: expect.objectContaining({ type: "invalid_request_error", code: "stream_not_found" }),
      });
      expect((await cancel(app, id)).status).toBe(404);
    }
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    const count = eventsOf(await response.text()).length;
    for (const bad of ["abc", "-1", "1.5", "9".repeat(40)]) {
      const refused = await follow(app, id, undefined, { "last-event-id": bad });
      expect(refused.status).toBe(400);
    }
    // Past the last event of a finished stream: nothing will come (204, see above); of a stream
    // still running, a client's mistake.
    expect((await follow(app, id, count + 1)).status).toBe(204);
    const { app: stalled } = streamsRelay("stall-after=2,stall-ms=3000");
    const running = await startResumable(stalled);
    const runningId = running.headers.get("x-stopstream-stream-id")!;
    const first = await readThenDrop(running, 2);
    const beyond = await follow(stalled, runningId, first.length + 1000);
    expect(beyond.status).toBe(400);
    expect(((await beyond.json()) as { error: { code: string } }).error.code).toBe(
      "invalid_last_event_id",
    );
    await cancel(stalled, runningId);
  });

  it("an upstream failure before the answer begins keeps its HTTP status, and no stream is made", async () => {
    const { app, testId } = streamsRelay("status=422");
    const response = await startResumable(app);
    expect(response.status).toBe(422);
    expect(response.headers.get("x-stopstream-stream-id")).toBeNull();
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain(
      "demo fault status=422",
    );
    expect((await faultStats(testId)).requests).toBe(1);
  });

  it("a failure after content ends the stream with a numbered error event, and no [DONE]", async () => {
    const { app } = streamsRelay("drop-after=4");
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    const events = eventsOf(await response.text());
    expect(events.map((e) => e.id)).toEqual(ids(events.length));
    const last = JSON.parse(events.at(-1)!.data) as { error: { code: string } };
    expect(last.error.code).toBe("incomplete_stream");
    expect(events.some((e) => e.data === "[DONE]")).toBe(false);
    // A reader who comes later sees the same end.
    expect(eventsOf(await (await follow(app, id, 2)).text())).toEqual(events.slice(2));
  });
});
