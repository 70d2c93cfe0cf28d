import { afterEach, describe, expect, test } from "vitest";
import {
  ConnectionError,
  PartialStreamError,
  StreamProtocolError,
  TimeoutError,
} from "../../src/core/error_classes.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import {
  answerEvents,
  answerOf,
  type Connection,
  type ResumableServer,
  sseBlocks,
  startResumableServer,
} from "../support/resumable_server.ts";
import { useFakeClock } from "../support/clock.ts";
import { collect, ofType } from "../support/sse.ts";
import { fixture } from "./protocol_replay.ts";
import { createRelay } from "../../src/relay/app.ts";

// OpenAI Responses background mode against a loopback imitation: a response created with
// `background: true` keeps running when the connection drops, and
// `GET /responses/{id}?stream=true&starting_after=<sequence_number>` streams the rest.

/** Recorded Responses streams: two function calls, and a text answer in three deltas. */
const TOOLS = sseBlocks(fixture("responses_tools.sse"));
const TEXT = sseBlocks(fixture("responses_text.sse"));
/** The id `response.created` gives each recorded response. */
const TEXT_ID = "resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654";
const TOOLS_ID = "resp_682d514e268c8191a89c38ea318446200f2610a7ec781a4f";
const KEY = "sk-background-test";
const BODY = { model: "gpt-4.1", input: "Weather in Oslo and Kyiv?", background: true };

// No further connection is proved by jumping the clock past every wait, not by sleeping.
useFakeClock();

let servers: ResumableServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function serve(events: string[], script: Connection[] = []): Promise<ResumableServer> {
  const server = await startResumableServer("background", events, script);
  servers.push(server);
  return server;
}

function options(server: ResumableServer, extra: Partial<StreamChatOptions> = {}) {
  return {
    protocol: "openai-responses",
    baseURL: server.baseURL,
    apiKey: KEY,
    body: BODY,
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    fetch: server.fetch,
    ...extra,
  } satisfies StreamChatOptions;
}

const resumePath = (after: number, id = TEXT_ID) =>
  `/v1/responses/${id}?stream=true&starting_after=${after}`;

describe("resuming an OpenAI Responses background response", () => {
  test("cut twice mid-tool-calls: starting_after goes on where it broke off, as if undisturbed", async () => {
    const clean = await collect(streamChat(options(await serve(TOOLS))));
    const server = await serve(TOOLS, [{ endAt: 5 }, { endAt: 9 }]);
    const { events, result, error } = await collect(streamChat(options(server)));
    expect(error).toBeUndefined();
    expect(answerEvents(events)).toEqual(answerEvents(clean.events));
    expect(answerOf(result)).toEqual(answerOf(clean.result));
    expect(result?.toolCalls).toHaveLength(3);
    expect(result).toMatchObject({ resumes: 2, attempts: 3, finishReason: "tool_calls" });
    expect(ofType(events, "resume").map((e) => [e.lastEventId, e.error.name])).toEqual([
      ["4", "ConnectionError"],
      ["8", "ConnectionError"],
    ]);
    expect(server.connections.map((c) => `${c.method} ${c.path}`)).toEqual([
      "POST /v1/responses",
      `GET ${resumePath(4, TOOLS_ID)}`,
      `GET ${resumePath(8, TOOLS_ID)}`,
    ]);
    for (const resume of server.connections.slice(1)) {
      expect(resume.headers.get("authorization")).toBe(`Bearer ${KEY}`);
      expect(resume.headers.get("accept")).toBe("text/event-stream");
      expect(resume.headers.get("content-type")).toBeNull();
    }
    expect(server.cancels).toHaveLength(0);
  });

  test("awaiting result alone resumes the same way", async () => {
    const clean = await streamChat(options(await serve(TEXT))).result;
    const server = await serve(TEXT, [{ endAt: 5 }, { endAt: 6 }]);
    const result = await streamChat(options(server)).result;
    expect(answerOf(result)).toEqual(answerOf(clean));
    expect(result.content).toBe(clean.content);
    expect(result.resumes).toBe(2);
    expect(server.connections.map((c) => c.path)).toEqual([
      "/v1/responses",
      resumePath(4),
      resumePath(5),
    ]);
  });

  test("a stall is resumed like a drop", async () => {
    const clean = await streamChat(options(await serve(TEXT))).result;
    const server = await serve(TEXT, [{ stallAt: 6 }]);
    const { events, result } = await collect(
      streamChat(options(server, { timeouts: { idleMs: 100 } })),
    );
    expect(answerOf(result)).toEqual(answerOf(clean));
    expect(ofType(events, "text").map((e) => e.text).join("")).toBe(clean.content);
    const [resume] = ofType(events, "resume");
    expect(resume?.error).toBeInstanceOf(TimeoutError);
    expect(server.connections[1]?.path).toBe(resumePath(5));
  });

  test("a drop before response.created starts over: there is no response to name yet", async () => {
    const server = await serve(TEXT, [{ endAt: 0 }]);
    const { events, result } = await collect(streamChat(options(server)));
    expect(result?.resumes).toBeUndefined();
    expect(result?.attempts).toBe(2);
    expect(ofType(events, "retry")).toHaveLength(1);
    expect(server.connections.map((c) => c.method)).toEqual(["POST", "POST"]);
  });

  test("without background: true a drop after content is a partial stream, as before", async () => {
    const { background: _, ...foreground } = BODY;
    const server = await serve(TEXT, [{ endAt: 6 }]);
    const error = await streamChat(options(server, { body: foreground })).result
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartialStreamError);
    expect((error as PartialStreamError).cause).toBeInstanceOf(ConnectionError);
    await server.expectNoMoreRequests();
    expect(server.connections).toHaveLength(1);
  });

  test("a server that ignores starting_after: never a duplicate, a partial stream", async () => {
    const server = await serve(TEXT, [{ endAt: 6 }, { fromStart: true }]);
    const { events, result } = await collect(
      streamChat(options(server, { onPartial: "return" })),
    );
    expect(result?.partial).toBe(true);
    expect(result?.error).toBeInstanceOf(StreamProtocolError);
    expect(ofType(events, "text").map((e) => e.text).join("")).toBe(result?.content);
    expect(ofType(events, "text")).toHaveLength(2);
  });

  test("a resumed response that leaves out a sequence_number further on is refused when it ends", async () => {
    // Resumed after 4: 5, 7, 8, 9, 10 (the third text delta, 6, is left out; the recording's
    // block 6 is a keep-alive comment, so it is block 7).
    const server = await serve(TEXT, [{ endAt: 5 }, { omit: [7] }]);
    const { events, result } = await collect(
      streamChat(options(server, { onPartial: "return" })),
    );
    expect(result?.partial).toBe(true);
    expect(result?.error).toBeInstanceOf(StreamProtocolError);
    expect(result?.error?.message).toMatch(
      /sent 5 events after event 4 but ended at event 10.*starting_after/,
    );
    expect(ofType(events, "text")).toHaveLength(2);
  });

  test("a resume answered 404 fails as the cut did", async () => {
    const server = await serve(TEXT, [{ endAt: 6 }, { status: 404 }]);
    const error = await streamChat(options(server)).result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartialStreamError);
    expect((error as PartialStreamError).cause).toBeInstanceOf(ConnectionError);
    expect((error as PartialStreamError).partial.resumes).toBe(1);
  });
});

describe("through the relay's /v1/responses, passed through", () => {
  test("each delta reaches the caller once: resumed after the delta it last passed on", async () => {
    // The cut after 5 falls after a text delta the relay passed on without decoding it: the
    // resume must still start after it.
    const server = await serve(TEXT, [{ endAt: 5 }, { endAt: 6 }]);
    const relay = createRelay({
      upstreams: [{ baseURL: server.baseURL, apiKey: KEY, protocol: "openai-responses" }],
      fetch: server.fetch,
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
    });
    const response = await relay.request("/v1/responses", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...BODY, stream: true }),
    });
    const raw = await response.text();
    const deltas = [
      ...raw.matchAll(/"type":"response\.output_text\.delta"[^\n]*"delta":("[^"]*")/g),
    ]
      .map((m) => JSON.parse(m[1]!) as string);
    const clean = await streamChat(options(await serve(TEXT))).result;
    expect(deltas.join("")).toBe(clean.content);
    expect(deltas).toHaveLength(3);
    expect(server.connections.map((c) => c.path)).toEqual([
      "/v1/responses",
      resumePath(4),
      resumePath(5),
    ]);
  });
});
