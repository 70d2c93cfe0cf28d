import { afterEach, describe, expect, test } from "vitest";
import {
  ConnectionError,
  PartialStreamError,
  StreamProtocolError,
  TimeoutError,
  UpstreamStreamError,
} from "../../src/core/error_classes.ts";
import { isPartialStreamError } from "../../src/core/error_guards.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import {
  answerEvents,
  answerOf,
  type Connection,
  RELAY_STREAM_ID,
  relayOptions,
  type ResumableServer,
  ServerPool,
  sseBlocks,
} from "../support/resumable_server.ts";
import { chunk, collect, ofType, sse } from "../support/sse.ts";
import { useFakeClock } from "../support/clock.ts";
import { fixture } from "./protocol_replay.ts";

// The client against a loopback imitation of the relay's resumable streams: the stream runs on
// the server whatever happens to the connection, and the client goes on where it broke off.

/** A recorded OpenAI stream whose tool call's arguments arrive over several events. */
const TOOLS = sseBlocks(fixture("openai_tools.sse"));
/** A longer text answer: role chunk, 12 words, finish, usage, [DONE] (16 events). */
const WORDS = "One two three four five six seven eight nine ten eleven twelve.".split(/(?<= )/);
const TEXT = [
  sse(chunk({ role: "assistant", content: "" })),
  ...WORDS.map((word) => sse(chunk({ content: word }))),
  sse(chunk({}, "stop")),
  sse({ ...chunk({}), choices: [], usage: { prompt_tokens: 5, completion_tokens: 12 } }),
  "data: [DONE]\n\n",
];
/** What the relay sends when someone cancelled the stream: an error event, no [DONE]. */
const CANCELLED = sse({
  error: { message: "stopstream: the stream was cancelled", type: "stream_cancelled" },
});

const BODY = { model: "gpt-test", messages: [{ role: "user", content: "Hi" }] };
const KEY = "sk-relay-test";

const pool = new ServerPool();
// No further connection is proved by jumping the clock past every wait, not by sleeping.
useFakeClock();
afterEach(() => pool.closeAll());

function serve(events: string[], script: Connection[] = []): Promise<ResumableServer> {
  return pool.start("relay", events, script);
}

function options(server: ResumableServer, extra: Partial<StreamChatOptions> = {}) {
  return relayOptions(server, KEY, BODY, extra);
}

/** `response` with a body that fails like a lost connection after `bytes` bytes. */
function failAfter(response: Response, bytes: number): Response {
  const reader = response.body!.getReader();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent >= bytes) {
        reader.cancel().catch(() => {});
        return controller.error(new TypeError("terminated"));
      }
      const { done, value } = await reader.read();
      if (done) return controller.close();
      const piece = value.subarray(0, bytes - sent);
      sent += piece.byteLength;
      controller.enqueue(piece);
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}

async function undisturbed(events: string[]) {
  const server = await serve(events);
  return await collect(streamChat(options(server)));
}

describe("resuming a relay stream after its connection drops", () => {
  test("a stream cut twice goes on twice: events and result are those of an undisturbed run", async () => {
    const clean = await undisturbed(TOOLS);
    const server = await serve(TOOLS, [{ endAt: 2 }, { endAt: 5 }]);
    const { events, result, error } = await collect(streamChat(options(server)));
    expect(error).toBeUndefined();
    expect(answerEvents(events)).toEqual(answerEvents(clean.events));
    expect(answerOf(result)).toEqual(answerOf(clean.result));
    expect(result?.toolCalls[0]?.arguments).toBe('{"city": "Oslo"}');
    expect(result).toMatchObject({ resumes: 2, attempts: 3 });
    expect(ofType(events, "resume")).toEqual([
      {
        type: "resume",
        lastEventId: "2",
        attempt: 2,
        delayMs: expect.any(Number),
        error: expect.any(ConnectionError),
      },
      {
        type: "resume",
        lastEventId: "5",
        attempt: 3,
        delayMs: expect.any(Number),
        error: expect.any(ConnectionError),
      },
    ]);
    expect(ofType(events, "open").map((e) => e.attempt)).toEqual([1, 2, 3]);
    const [post, first, second] = server.connections;
    expect(server.connections.map((c) => `${c.method} ${c.path}`)).toEqual([
      "POST /v1/chat/completions",
      `GET /v1/streams/${RELAY_STREAM_ID}`,
      `GET /v1/streams/${RELAY_STREAM_ID}`,
    ]);
    expect([first!.headers.get("last-event-id"), second!.headers.get("last-event-id")])
      .toEqual(["2", "5"]);
    for (const resume of [first!, second!]) {
      // The resume is the same caller: same key and headers, but no body.
      expect(resume.headers.get("authorization")).toBe(`Bearer ${KEY}`);
      expect(resume.headers.get("x-stopstream-resumable")).toBe("true");
      expect(resume.headers.get("accept")).toBe("text/event-stream");
      expect(resume.headers.get("content-type")).toBeNull();
    }
    expect(await post!.closed).toBe("finished"); // ended before [DONE]: a cut to the client
    expect(server.cancels).toHaveLength(0);
  });

  test("a socket destroyed mid-answer: the answer is whole and nothing repeats", async () => {
    const server = await serve(TEXT, [{ cutAt: 5 }, { cutAt: 11 }]);
    const { events, result } = await collect(streamChat(options(server)));
    expect(ofType(events, "text").map((e) => e.text)).toEqual(WORDS);
    expect(result?.content).toBe(WORDS.join(""));
    expect(await server.connections[0]!.closed).toBe("dropped");
    // Received is not read: what the client had not read when the socket went is lost with
    // it, so where it resumes depends on timing. Each resume asks for what follows what it
    // processed.
    const asked = server.connections.slice(1).map((c) => c.headers.get("last-event-id") ?? "");
    expect(asked).toEqual(ofType(events, "resume").map((e) => e.lastEventId));
  });

  test("a connection lost mid-event: the half event is dropped, and arrives whole on the resume", async () => {
    const server = await serve(TEXT);
    const withIds = TEXT.slice(0, 4).map((block, i) => `id: ${i + 1}\n${block}`).join("");
    let calls = 0;
    // The network fails inside the body the client reads, in order: 4 events and a half.
    const cutting = async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await fetch(input, init);
      return calls++ === 0 ? failAfter(response, withIds.length + 20) : response;
    };
    const { events, result } = await collect(
      streamChat(options(server, { fetch: cutting as typeof fetch })),
    );
    expect(ofType(events, "text").map((e) => e.text)).toEqual(WORDS);
    expect(result?.content).toBe(WORDS.join(""));
    expect(ofType(events, "resume").map((e) => e.lastEventId)).toEqual(["4"]);
  });

  test("awaiting result alone resumes the same way", async () => {
    const clean = await undisturbed(TEXT);
    const server = await serve(TEXT, [{ endAt: 4 }, { endAt: 9 }, { endAt: 14 }]);
    const result = await streamChat(options(server, { maxRetries: 3 })).result;
    expect(answerOf(result)).toEqual(answerOf(clean.result));
    expect(result.content).toBe(WORDS.join(""));
    expect(result.usage?.outputTokens).toBe(12);
    expect(result).toMatchObject({ resumes: 3, attempts: 4 });
    expect(server.connections.map((c) => c.headers.get("last-event-id"))).toEqual([
      null,
      "4",
      "9",
      "14",
    ]);
  });

  test("each text event arrives exactly once, whatever the connection it came on", async () => {
    const server = await serve(TEXT, [{ endAt: 3 }, { endAt: 4 }, { endAt: 10 }]);
    const { events, result } = await collect(streamChat(options(server, { maxRetries: 3 })));
    expect(ofType(events, "text").map((e) => e.text)).toEqual(WORDS);
    expect(result?.resumes).toBe(3);
  });

  test("a drop before the first whole event resumes from the start, without Last-Event-ID", async () => {
    const server = await serve(TEXT, [{ endAt: 0 }]);
    const { events, result } = await collect(streamChat(options(server)));
    expect(result?.content).toBe(WORDS.join(""));
    expect(ofType(events, "resume").map((e) => e.lastEventId)).toEqual([""]);
    expect(server.connections[1]!.method).toBe("GET");
    expect(server.connections[1]!.headers.has("last-event-id")).toBe(false);
  });

  test("a reconnect waits out the backoff first", async () => {
    const server = await serve(TEXT, [{ endAt: 5 }]);
    const retry = { initialDelayMs: 60, maxDelayMs: 60 };
    const { events, result } = await collect(streamChat(options(server, { retry })));
    expect(result?.content).toBe(WORDS.join(""));
    expect(ofType(events, "resume").map((e) => e.delayMs)).toEqual([60]);
    // A lower bound only: the timer cannot fire before its delay (1 ms of clock rounding).
    expect(server.connections[1]!.at - server.cutTimes[0]!).toBeGreaterThanOrEqual(59);
  });

  test("a 503 on a resume is retried after its retry-after, still as a resume", async () => {
    const server = await serve(TEXT, [
      { endAt: 5 },
      { status: 503, headers: { "retry-after-ms": "40" } },
    ]);
    const { events, result } = await collect(streamChat(options(server)));
    expect(result?.content).toBe(WORDS.join(""));
    expect(ofType(events, "resume").map((e) => [e.lastEventId, e.delayMs])).toEqual([
      ["5", expect.any(Number)],
      ["5", 40],
    ]);
    expect(server.connections.map((c) => c.headers.get("last-event-id"))).toEqual([
      null,
      "5",
      "5",
    ]);
  });

  test("maxRetries bounds the reconnects: then the call fails as a partial stream", async () => {
    const server = await serve(TEXT, [{ endAt: 3 }, { endAt: 6 }, { endAt: 9 }]);
    const { events, error } = await collect(streamChat(options(server, { maxRetries: 2 })));
    expect(error).toBeInstanceOf(PartialStreamError);
    const partial = (error as PartialStreamError).partial;
    expect(partial.content).toBe(WORDS.slice(0, 8).join(""));
    expect(partial.resumes).toBe(2);
    expect((error as PartialStreamError).cause).toBeInstanceOf(ConnectionError);
    expect(ofType(events, "resume")).toHaveLength(2);
    await server.expectNoMoreRequests();
    expect(server.connections).toHaveLength(3);
  });

  test("a stall is resumed like a drop", async () => {
    const clean = await undisturbed(TEXT);
    const server = await serve(TEXT, [{ stallAt: 3 }]);
    const { events, result } = await collect(
      streamChat(options(server, { timeouts: { idleMs: 100 } })),
    );
    expect(answerEvents(events)).toEqual(answerEvents(clean.events));
    expect(result?.content).toBe(WORDS.join(""));
    const [resume] = ofType(events, "resume");
    expect(resume?.lastEventId).toBe("3");
    expect(resume?.error).toBeInstanceOf(TimeoutError);
    expect((resume?.error as TimeoutError).phase).toBe("idle");
    expect(await server.connections[0]!.closed).toBe("aborted");
  });
});

describe("what a resume cannot continue ends as a partial stream, never with a duplicate", () => {
  test("a server that ignores Last-Event-ID and replays from the start", async () => {
    const server = await serve(TEXT, [{ endAt: 4 }, { fromStart: true }]);
    const { events, result } = await collect(
      streamChat(options(server, { onPartial: "return" })),
    );
    expect(result?.partial).toBe(true);
    expect(result?.error).toBeInstanceOf(StreamProtocolError);
    expect(result?.error?.message).toMatch(/did not start right after event 4 .*Last-Event-ID/);
    expect(result?.content).toBe(WORDS.slice(0, 3).join(""));
    expect(ofType(events, "text").map((e) => e.text)).toEqual(WORDS.slice(0, 3));
    expect(server.connections).toHaveLength(2);
  });

  test("a resumed connection that leaves events out", async () => {
    const server = await serve(TEXT, [{ endAt: 4 }, { skip: 2 }]);
    const error = await streamChat(options(server)).result.catch((e: unknown) => e);
    expect(isPartialStreamError(error)).toBe(true);
    expect((error as PartialStreamError).cause).toBeInstanceOf(StreamProtocolError);
    expect((error as PartialStreamError).partial.content).toBe(WORDS.slice(0, 3).join(""));
  });

  test("a resumed connection that leaves events out further on is refused when it ends", async () => {
    // Resumed after event 4; events 7 and 8 (the words "six " and "seven ") never come.
    const server = await serve(TEXT, [{ endAt: 4 }, { omit: [6, 7] }]);
    const { events, result } = await collect(
      streamChat(options(server, { onPartial: "return" })),
    );
    expect(result?.partial).toBe(true);
    expect(result?.error).toBeInstanceOf(StreamProtocolError);
    expect(result?.error?.message).toMatch(
      /sent 10 events after event 4 but ended at event 16, so part of the answer would be missing .*Last-Event-ID/,
    );
    // Checked once per connection, not per event: what arrived is kept as it came, the hole
    // included, and the error says it is not the answer.
    const arrived = [...WORDS.slice(0, 5), ...WORDS.slice(7)];
    expect(ofType(events, "text").map((e) => e.text)).toEqual(arrived);
    expect(result?.content).toBe(arrived.join(""));
    expect(ofType(events, "finish").map((e) => e.result.partial)).toEqual([true]);
  });

  test("a resumed connection that left events out and drops again is not resumed over the gap", async () => {
    // Resumed after event 4: events 5, 6, 8, 9, then a cut.
    const server = await serve(TEXT, [{ endAt: 4 }, { omit: [6], endAt: 9 }, {}]);
    const error = await streamChat(options(server)).result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartialStreamError);
    const cause = (error as PartialStreamError).cause as StreamProtocolError;
    expect(cause).toBeInstanceOf(StreamProtocolError);
    expect(cause.message).toMatch(/sent 4 events after event 4 but ended at event 9/);
    expect(server.connections).toHaveLength(2);
  });

  test("a stream resumed from its start (nothing had arrived) must begin at event 1", async () => {
    const server = await serve(TEXT, [{ endAt: 0 }, { skip: 2 }]);
    const { events, error } = await collect(streamChat(options(server)));
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect((error as StreamProtocolError).message).toMatch(
      /did not start right after event 0 \(its first event is 3\)/,
    );
    expect(ofType(events, "text")).toHaveLength(0);
    expect(server.connections.map((c) => c.headers.get("last-event-id"))).toEqual([null, null]);
  });

  test("a stream id that would not stay one URL path segment is not used", async () => {
    const server = await serve(TEXT, [{ endAt: 4, headers: { "x-stopstream-stream-id": ".." } }]);
    const error = await streamChat(options(server)).result.catch((e: unknown) => e);
    expect((error as PartialStreamError).cause).toBeInstanceOf(ConnectionError);
    await server.expectNoMoreRequests();
    expect(server.connections).toHaveLength(1);
    expect(server.server.requests()).toHaveLength(1); // no GET {baseURL}/streams/.. (= {baseURL}/)
  });

  test("events without ids are not resumed", async () => {
    const server = await serve(TEXT, [{ endAt: 4, noIds: true }]);
    const error = await streamChat(options(server)).result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartialStreamError);
    expect((error as PartialStreamError).cause).toBeInstanceOf(ConnectionError);
    expect(server.connections).toHaveLength(1);
  });

  test("a resume answered 404 (expired, unknown) fails as the cut did; onPartial applies", async () => {
    const server = await serve(TEXT, [{ endAt: 4 }, { status: 404 }]);
    const thrown = await streamChat(options(server)).result.catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(PartialStreamError);
    expect((thrown as PartialStreamError).cause).toBeInstanceOf(ConnectionError);
    expect((thrown as PartialStreamError).partial).toMatchObject({
      content: WORDS.slice(0, 3).join(""),
      resumes: 1,
      attempts: 2,
    });

    // The cut decides, not a passing failure of a resume in between.
    const later = await serve(TEXT, [{ endAt: 4 }, { status: 503 }, { status: 410 }]);
    const after503 = await streamChat(options(later)).result.catch((e: unknown) => e);
    expect((after503 as PartialStreamError).cause).toBeInstanceOf(ConnectionError);
    expect((after503 as PartialStreamError).partial.resumes).toBe(2);

    const again = await serve(TEXT, [{ endAt: 4 }, { status: 404 }]);
    const result = await streamChat(options(again, { onPartial: "return" })).result;
    expect(result).toMatchObject({ partial: true, content: WORDS.slice(0, 3).join("") });
    expect(result.error).toBeInstanceOf(ConnectionError);
    expect(again.connections).toHaveLength(2);
  });

  test("a resume answered 404 or 410 with nothing delivered yet: a new request, the whole answer", async () => {
    for (const status of [404, 410]) {
      const server = await serve(TEXT, [{ endAt: 0 }, { status }]);
      const { events, result } = await collect(streamChat(options(server)));
      expect(result?.content, String(status)).toBe(WORDS.join(""));
      expect(server.connections.map((c) => c.method)).toEqual(["POST", "GET", "POST"]);
      // Each text event once: nothing of the first request had reached the caller.
      expect(ofType(events, "text").map((e) => e.text).join("")).toBe(WORDS.join(""));
    }
  });

  test("the stream's own error event (cancelled elsewhere) ends it, and is not resumed", async () => {
    const events = [...TEXT.slice(0, 6), CANCELLED];
    const server = await serve(events, [{ endAt: 3 }]);
    const error = await streamChat(options(server)).result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartialStreamError);
    const cause = (error as PartialStreamError).cause as UpstreamStreamError;
    expect(cause).toBeInstanceOf(UpstreamStreamError);
    expect(cause.retryable).toBe(false);
    expect((error as PartialStreamError).partial.content).toBe(WORDS.slice(0, 5).join(""));
    await server.expectNoMoreRequests();
    expect(server.connections).toHaveLength(2);
  });

  test("an error the stream itself reports is not resumed, even a transient one", async () => {
    // The server stored it with the stream: a resume would only replay it.
    const overloaded = sse({ error: { message: "Overloaded", type: "server_error" } });
    const server = await serve([...TEXT.slice(0, 6), overloaded]);
    const error = await streamChat(options(server)).result.catch((e: unknown) => e);
    const cause = (error as PartialStreamError).cause as UpstreamStreamError;
    expect(cause).toBeInstanceOf(UpstreamStreamError);
    expect(cause.retryable).toBe(true);
    expect((error as PartialStreamError).partial.content).toBe(WORDS.slice(0, 5).join(""));
    await server.expectNoMoreRequests();
    expect(server.connections).toHaveLength(1);
  });
});

describe("what does not cancel a resumable stream (stops: resume_stop.test.ts)", () => {
  test("a stream that finished is not cancelled, and a total timeout cancels nothing", async () => {
    const done = await serve(TEXT);
    const controller = new AbortController();
    await streamChat(options(done, { signal: controller.signal })).result;
    controller.abort();

    const stalled = await serve(TEXT, [{ stallAt: 5 }]);
    const error = await streamChat(options(stalled, { timeouts: { totalMs: 80 } })).result
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    await done.expectNoMoreRequests();
    await stalled.expectNoMoreRequests();
    expect(done.cancels).toHaveLength(0);
    expect(stalled.cancels).toHaveLength(0);
  });
});
