// Starting a resumable stream in workerd: every option the relay accepts reaches the Durable
// Object intact, and a start that fails leaves no storage (no row, no alarm) behind.
import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { RelayStream, type RelayStreamState } from "../../src/relay/index.ts";
import { encodePlan, type StartPlan } from "../../src/relay/streams/wire.ts";
import {
  eventsOf,
  faultStats,
  follow,
  startResumable,
  streamsRelay,
  streamStub,
} from "./stream_helpers.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Watches (and quiets) what the object logs. */
const logged = () => vi.spyOn(console, "error").mockImplementation(() => {});

const newId = (): string => crypto.randomUUID().replaceAll("-", "");

/** A stream object's tables and alarm. */
function storageOf(id: string): Promise<{ tables: unknown[]; alarm: number | null }> {
  return runInDurableObject(streamStub(id), async (_, state) => ({
    tables: state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'")
      .toArray().map((row: Record<string, unknown>) => row.name),
    alarm: await state.storage.getAlarm(),
  }));
}

/** The `stream` row status of every object this test file created (`undefined`: no row). */
async function statusOfEveryStream(): Promise<Array<string | undefined>> {
  const ids = await listDurableObjectIds(env.STREAMS);
  return await Promise.all(ids.map((id) =>
    runInDurableObject(env.STREAMS.get(id), (_, state) => {
      const table = state.storage.sql.exec(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'stream'",
      ).toArray();
      if (table.length === 0) return undefined;
      const row = state.storage.sql.exec("SELECT status FROM stream").toArray()[0];
      return row === undefined ? undefined : String(row.status);
    })
  ));
}

/** The start request the relay's Worker sends, for stream `id`, its upstream the fault server. */
function startRequest(id: string, testId: string, call: Partial<StartPlan["call"]> = {}): Request {
  const plan: StartPlan = {
    id,
    owner: "",
    call: {
      baseURL: `${inject("faultOrigin")}/t/${testId}/v1`,
      body: { model: "demo", messages: [{ role: "user", content: "hello relay" }] },
      ...call,
    },
    upstreams: [0],
    chat: { id: "chatcmpl-start", model: "demo", includeUsage: false },
    keepAliveMs: 15_000,
    ttlMs: 60_000,
    maxBytes: 1 << 20,
  };
  return new Request("https://relay-stream/start", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: encodePlan(plan),
  });
}

describe("starting a resumable stream", () => {
  it("limits of Infinity (no limit) reach the stream's call: it streams and is kept as any other", async () => {
    const { app } = streamsRelay("", {
      timeouts: { idleMs: Infinity, firstEventMs: Infinity, totalMs: Infinity },
      retry: { maxRetryAfterMs: Infinity },
    });
    const response = await startResumable(app);
    expect(response.status).toBe(200);
    const id = response.headers.get("x-stopstream-stream-id")!;
    expect(eventsOf(await response.text()).at(-1)?.data).toBe("[DONE]");
    const status = await (await follow(app, id, undefined, { accept: "application/json" })).json();
    expect(status).toEqual(expect.objectContaining({ status: "completed" }));
    // Kept until its expiry alarm deletes it; no object holds a stream that runs for ever.
    const kept = await storageOf(id);
    expect(kept.tables).toContain("stream");
    expect(kept.alarm).toBeGreaterThan(Date.now());
    expect(await statusOfEveryStream()).not.toContain("running");
  });

  it("a plan the call refuses is an OpenAI-shaped 500 and leaves no row, no alarm, no request", async () => {
    const id = newId();
    const testId = `start-refused-${id}`;
    const log = logged();
    const response = await streamStub(id).fetch(
      startRequest(id, testId, { timeouts: { idleMs: -1 } }),
    );
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringMatching(/^The relay could not start the resumable stream; /),
        type: "server_error",
        param: null,
        code: "stream_start_failed",
      },
    });
    expect(await storageOf(id)).toEqual({ tables: [], alarm: null });
    expect((await faultStats(testId)).requests).toBe(0);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/did not start: RangeError: .*idleMs/));
  });

  it("a heartbeat alarm that cannot be set: a 500, nothing left in storage, no request", async () => {
    const id = newId();
    const testId = `start-no-alarm-${id}`;
    const log = logged();
    const seen = await runInDurableObject(streamStub(id), async (_, state) => {
      const { storage } = state;
      let alarmsAsked = 0;
      const failing: RelayStreamState = {
        storage: {
          sql: storage.sql,
          setAlarm: () => {
            alarmsAsked++;
            return Promise.reject(new Error("alarms unavailable"));
          },
          deleteAlarm: () => storage.deleteAlarm(),
          deleteAll: () => storage.deleteAll(),
        },
      };
      // Made in the object: a request body is bound to the context that made it.
      const response = await new RelayStream(failing).fetch(startRequest(id, testId));
      return {
        alarmsAsked,
        status: response.status,
        body: await response.json(),
        tables: storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray(),
      };
    });
    expect(seen).toEqual({
      alarmsAsked: 1,
      status: 500,
      body: { error: expect.objectContaining({ code: "stream_start_failed" }) },
      tables: [],
    });
    expect((await faultStats(testId)).requests).toBe(0);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/did not start: Error: alarms/));
  });
});
