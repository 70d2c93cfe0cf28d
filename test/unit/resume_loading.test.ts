/**
 * The resumable-stream client (src/resume.ts) is not in what every app loads: src/resumable.ts
 * loads it once a response says the server keeps the stream. Here its `import()` is held at a
 * gate (vi.mock), so each case is the first resumable call in a fresh module graph with the
 * client still loading: a drop waits for it and resumes, a stop does not wait for it, a client
 * that fails to load ends the call as a stream that cannot be resumed, and a call that is not
 * resumable never loads it. Against a loopback imitation of the relay's resumable streams.
 */

import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import { isInterruptedError, isPartialStreamError } from "../../src/core/error_guards.ts";
import {
  answerOf,
  type Connection,
  RELAY_STREAM_ID,
  relayOptions,
  type ResumableServer,
  ServerPool,
  sseBlocks,
} from "../support/resumable_server.ts";
import { collect, settlesNow } from "../support/sse.ts";
import { fixture } from "./protocol_replay.ts";

/** The gate the client's import waits at: `entered` once it is asked for, then `open` or `fail`. */
const gate = (() => {
  const gate = {
    loads: 0,
    entered: Promise.resolve(),
    open: (): void => {},
    fail: (_error: Error): void => {},
    reset(): void {
      let entered!: () => void;
      gate.entered = new Promise((resolve) => (entered = resolve));
      const held = new Promise<void>((resolve, reject) => {
        gate.open = resolve;
        gate.fail = reject;
      });
      gate.wait = () => {
        gate.loads++;
        entered();
        return held;
      };
    },
    wait: (): Promise<void> => Promise.resolve(),
  };
  return gate;
})();

/** Holds the client's import at the gate; registered anew for each module graph. */
function holdTheClient(): void {
  vi.doMock("../../src/resume.ts", async (importOriginal) => {
    await gate.wait();
    return await importOriginal();
  });
}

const EVENTS = sseBlocks(fixture("openai_text.sse"));
const KEY = "sk-loading-test";
/** An event after some text arrived. */
const AFTER = 3;

const pool = new ServerPool();
beforeEach(() => {
  vi.resetModules(); // a fresh module graph: the client is not loaded yet
  holdTheClient();
  gate.loads = 0;
  gate.reset();
});
afterEach(async () => {
  gate.open();
  await pool.closeAll();
});

function serve(script: Connection[]): Promise<ResumableServer> {
  return pool.start("relay", EVENTS, script);
}

function options(server: ResumableServer, extra: Partial<StreamChatOptions> = {}) {
  return relayOptions(server, KEY, {
    model: "gpt-test",
    messages: [{ role: "user", content: "Hi" }],
  }, extra);
}

/** streamChat from this test's module graph, and a promise of its first resumeAfter. */
async function freshClient() {
  const { streamChat } = await import("../../src/client/stream_chat.ts");
  const { ResumableStream } = await import("../../src/client/resumable.ts");
  const resumeAfter = ResumableStream.prototype.resumeAfter;
  let asked!: () => void;
  const askedToResume = new Promise<void>((resolve) => (asked = resolve));
  vi.spyOn(ResumableStream.prototype, "resumeAfter").mockImplementation(function (
    this: InstanceType<typeof ResumableStream>,
    ...args
  ) {
    asked();
    return resumeAfter.apply(this, args);
  });
  return { streamChat, askedToResume };
}

describe("the resumable-stream client, loaded once a stream is resumable", () => {
  test("a drop before it has loaded waits for it, then resumes where it broke off", async () => {
    gate.open(); // the answer undisturbed, to compare with
    const clean = await (await freshClient()).streamChat(options(await serve([]))).result;
    vi.resetModules();
    holdTheClient();
    gate.reset();
    const server = await serve([{ endAt: AFTER }]);
    const { streamChat, askedToResume } = await freshClient();
    const result = streamChat(options(server)).result;
    await gate.entered; // the response said resumable: the load started
    await askedToResume; // the drop reached the retry loop, the client still loading
    expect(server.connections).toHaveLength(1);
    gate.open();
    const resumed = await result;
    expect(answerOf(resumed)).toEqual(answerOf(clean));
    expect(resumed).toMatchObject({ resumes: 1, attempts: 2 });
    expect(server.connections.map((c) => `${c.method} ${c.path}`)).toEqual([
      "POST /v1/chat/completions",
      `GET /v1/streams/${RELAY_STREAM_ID}`,
    ]);
    expect(server.connections[1]!.headers.get("last-event-id")).toBe(String(AFTER));
  });

  test("a stop while it loads rejects at once; the stream is cancelled on the server once it has", async () => {
    const server = await serve([{ stallAt: AFTER }]);
    const { streamChat } = await freshClient();
    const controller = new AbortController();
    const result = streamChat(options(server, { signal: controller.signal })).result;
    await gate.entered;
    controller.abort();
    const settled = await settlesNow(result);
    expect(settled).toEqual({ rejected: expect.anything() });
    expect(isInterruptedError((settled as { rejected: unknown }).rejected)).toBe(true);
    expect(server.cancels).toHaveLength(0);
    gate.open();
    const cancel = await server.cancelled;
    expect(cancel.path).toBe(`/v1/streams/${RELAY_STREAM_ID}/cancel`);
    expect(cancel.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(server.connections).toHaveLength(1);
  });

  test("one that fails to load: the drop ends the call as a stream that was not resumed", async () => {
    const server = await serve([{ endAt: AFTER }]);
    const { streamChat, askedToResume } = await freshClient();
    // Iterated, so the text before the drop reached the caller: only a resume could go on.
    const collected = collect(streamChat(options(server)));
    await askedToResume;
    gate.fail(new TypeError("Failed to fetch dynamically imported module"));
    const { error } = await collected;
    expect(isPartialStreamError(error)).toBe(true);
    expect((error as Error).cause).toMatchObject({ name: "ConnectionError" });
    expect(server.connections).toHaveLength(1);
  });

  test("a hostile stream id, seen while it loads, is refused once it has: no request outside the stream", async () => {
    const hostile = { "x-stopstream-stream-id": "../../admin/delete" };
    const server = await serve([{ endAt: AFTER, headers: hostile }]);
    const { streamChat, askedToResume } = await freshClient();
    const collected = collect(streamChat(options(server)));
    await askedToResume;
    gate.open();
    const { error } = await collected;
    expect(isPartialStreamError(error)).toBe(true);
    expect(gate.loads).toBe(1);
    expect(server.server.requests().map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/chat/completions",
    ]);
  });

  test("a call whose response is not resumable never loads it", async () => {
    const { streamChat } = await freshClient();
    const body = EVENTS.join("") + "data: [DONE]\n\n";
    const result = await streamChat({
      baseURL: "https://provider.invalid/v1",
      body: { model: "gpt-test", messages: [] },
      fetch: () =>
        Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } })),
    }).result;
    expect(result.content.length).toBeGreaterThan(0);
    expect(gate.loads).toBe(0);
  });
  // Last: its import is still pending when the test ends (the gate opens in afterEach) and may
  // settle into the next test's fresh module graph, which would then find the client loaded.
  test("one whose load hangs: past headersMs the drop ends the call as a stream that was not resumed", async () => {
    const server = await serve([{ endAt: AFTER }]);
    const { streamChat } = await freshClient();
    // The gate stays shut: the import never settles.
    const { error } = await collect(streamChat(options(server, { timeouts: { headersMs: 50 } })));
    expect(isPartialStreamError(error)).toBe(true);
    expect((error as Error).cause).toMatchObject({ name: "ConnectionError" });
    expect(server.connections).toHaveLength(1);
  });
});
