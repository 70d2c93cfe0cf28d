// Resumable streams on `/v1/messages` and `/v1/responses` in workerd: what the relay itself writes
// into a stream (its object restarted mid-call, the stream expired under a reader) and answers
// about one (a reader too many, a bad Last-Event-ID, an upstream failure before the answer) is in
// the protocol the stream was started in, and the official SDK of that protocol sees an error,
// never a shorter answer it would take for whole.
import Anthropic from "@anthropic-ai/sdk";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import type { Hono } from "hono";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { ProtocolName } from "../../src/core/chat_options.ts";
import { StreamStore } from "../../src/relay/streams/stream_store.ts";
import { cancel, follow, runningMeta, streamsRelay, streamStub } from "./stream_helpers.ts";

type Json = Record<string, unknown>;

const ROUTES = [
  {
    path: "/v1/messages",
    protocol: "anthropic-messages" as ProtocolName,
    body: {
      model: "m",
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    },
    last: "message_stop",
    failed: ["error"],
  },
  {
    path: "/v1/responses",
    protocol: "openai-responses" as ProtocolName,
    body: { model: "m", stream: true, input: "hi" },
    last: "response.completed",
    failed: ["response.failed", "error"],
  },
];

interface Named {
  id: string | undefined;
  event: string;
  data: string;
  /** The event's lines as the stream stored them (comments left out). */
  raw: string;
}

/** Each event with its id, its name (`event:`) and its lines; comments left out. */
function named(text: string): Named[] {
  const out: Named[] = [];
  for (const block of text.split("\n\n")) {
    const lines = block.split("\n").filter((line) => line !== "" && !line.startsWith(":"));
    let id: string | undefined;
    let event = "";
    let data = "";
    for (const line of lines) {
      if (line.startsWith("id: ")) id = line.slice(4);
      else if (line.startsWith("event: ")) event = line.slice(7);
      else if (line.startsWith("data: ")) data = line.slice(6);
    }
    if (data !== "") out.push({ id, event, data, raw: `${lines.join("\n")}\n\n` });
  }
  return out;
}

function post(
  app: Pick<Hono, "request">,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(app.request(`http://relay.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-stopstream-resumable": "true", ...headers },
    body: JSON.stringify(body),
  }));
}

/** The answer's id as its first event names it (`message_start`, `response.created`). */
function answerIdOf(first: Named): string {
  const data = JSON.parse(first.data) as { message?: { id: string }; response?: { id: string } };
  return (data.message ?? data.response)!.id;
}

/**
 * A stream of `protocol` as a restart of its object leaves it: running, no call, the first
 * `kept` events of `events` stored (in two batches).
 */
async function crashed(
  protocol: ProtocolName,
  events: Named[],
  kept: number,
): Promise<{ id: string; app: Hono }> {
  const { app } = streamsRelay();
  const id = crypto.randomUUID().replaceAll("-", "");
  const answer = { protocol, id: answerIdOf(events[0]!), model: "m" };
  await runInDurableObject(streamStub(id), async (_, state) => {
    const store = new StreamStore(state.storage);
    const now = Date.now();
    store.create(runningMeta(id, now, answer));
    const encoder = new TextEncoder();
    const half = Math.ceil(kept / 2);
    for (const [first, last] of [[1, half], [half + 1, kept]] as const) {
      const text = events.slice(first - 1, last).map((e) => e.raw).join("");
      store.append({ first, last, data: encoder.encode(text) });
    }
    await state.storage.setAlarm(now + 30_000);
  });
  return { id, app };
}

/** A whole answer's events on `path` (no fault), as its creator got them. */
async function wholeAnswer(path: string, body: unknown): Promise<Named[]> {
  const { app } = streamsRelay("words=12");
  const response = await post(app, path, body);
  expect(response.status).toBe(200);
  return named(await response.text());
}

/**
 * A reader of a finished stream that reads one write, then the stream expires under it (its
 * row's expiry moved to the past, its alarm run): the rest of its body as it was sent then.
 */
async function readerOfExpired(
  app: Pick<Hono, "request">,
  id: string,
): Promise<Response> {
  const reader = (await follow(app, id)).body!.getReader();
  const first = await reader.read();
  const stub = streamStub(id);
  await runInDurableObject(stub, (_, state) => {
    state.storage.sql.exec("UPDATE stream SET expires = ?", Date.now() - 1);
  });
  expect(await runDurableObjectAlarm(stub)).toBe(true);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first.value!);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** A finished stream on `path`, long enough that a reader is behind after its first write. */
async function finishedLong(path: string, body: unknown): Promise<{ app: Hono; id: string }> {
  const { app } = streamsRelay("words=300,word-delay=2");
  const response = await post(app, path, body);
  const id = response.headers.get("x-stopstream-stream-id")!;
  await response.text();
  return { app, id };
}

/** The failed end of a stream: its error's type/code and message, whatever the protocol. */
function expectFailedEnd(
  events: Named[],
  route: (typeof ROUTES)[number],
  answerId: string,
  code: string,
  message: RegExp,
): void {
  const names = events.map((e) => e.event);
  expect(names.slice(-route.failed.length)).toEqual(route.failed);
  expect(names).not.toContain(route.last);
  const tail = events.slice(-route.failed.length).map((e) => JSON.parse(e.data) as Json);
  if (route.protocol === "anthropic-messages") {
    const [error] = tail as [{ type: string; error: { type: string; message: string } }];
    expect(error.type).toBe("error");
    expect(Object.keys(error.error).sort()).toEqual(["message", "type"]);
    expect(error.error.message).toMatch(message);
    return;
  }
  const [failed, error] = tail as [
    { type: string; sequence_number: number; response: Json & { error: Json } },
    { type: string; sequence_number: number; code: string; message: string; error: Json },
  ];
  expect(failed.response).toMatchObject({ id: answerId, status: "failed", error: { code } });
  expect(error).toMatchObject({ type: "error", code, message: expect.stringMatching(message) });
  expect(error.error).toMatchObject({ code });
  // Numbered on from the events before them: 0, 1, 2, … over the whole stream as read.
  const numbers = events.map((e) =>
    (JSON.parse(e.data) as { sequence_number: number }).sequence_number
  );
  expect(numbers).toEqual(numbers.map((_, i) => i));
}

describe.each(ROUTES)("a resumable stream on $path", (route) => {
  const { path, body } = route;

  it("its object restarted mid-call: a resume gets the stored events, then the protocol's error, numbered on", async () => {
    const whole = await wholeAnswer(path, body);
    expect(whole.at(-1)?.event).toBe(route.last);
    const kept = 5;
    const { id, app } = await crashed(route.protocol, whole, kept);
    const resumed = named(await (await follow(app, id)).text());
    expect(resumed.slice(0, kept)).toEqual(whole.slice(0, kept));
    const failedIds = route.failed.map((_, i) => String(kept + 1 + i));
    expect(resumed.slice(kept).map((e) => e.id)).toEqual(failedIds);
    expectFailedEnd(resumed, route, answerIdOf(whole[0]!), "stream_interrupted", /restarted/);
    // Stored: a later reader, from any event, gets the same end.
    const later = named(await (await follow(app, id, kept - 1)).text());
    expect(later).toEqual(resumed.slice(kept - 1));
  });

  it("expired under a reader that is behind: the protocol's error ends its body", async () => {
    const { app, id } = await finishedLong(path, body);
    const events = named(await (await readerOfExpired(app, id)).text());
    expect(events.length).toBeGreaterThan(route.failed.length);
    expectFailedEnd(events, route, answerIdOf(events[0]!), "stream_expired", /expired/);
    // The error is the reader's own, not stored: it has no id.
    expect(events.slice(-route.failed.length).map((e) => e.id)).toEqual(
      route.failed.map(() => undefined),
    );
    expect((await follow(app, id)).status).toBe(404);
  });

  it("refusals about a known stream are in its protocol's shape; an unknown id is OpenAI's 404", async () => {
    const { app } = streamsRelay("words=300,word-delay=10", { maxStreamReaders: 1 });
    const creator = await post(app, path, body);
    const id = creator.headers.get("x-stopstream-stream-id")!;
    const shapeOf = async (response: Response, status: number): Promise<Json> => {
      expect(response.status).toBe(status);
      const json = await response.json() as Json;
      if (route.protocol === "anthropic-messages") {
        expect(json.type).toBe("error");
        expect(Object.keys(json.error as Json).sort()).toEqual(["message", "type"]);
      } else {
        expect(Object.keys(json)).toEqual(["error"]);
      }
      return json.error as Json;
    };
    const tooMany = await follow(app, id);
    expect(tooMany.headers.get("retry-after")).toBe("15");
    const crowded = await shapeOf(tooMany, 429);
    expect(crowded).toMatchObject({
      type: "rate_limit_error",
      message: expect.stringMatching(/1 readers/),
    });
    for (const bad of ["abc", "99999"]) {
      const refused = await shapeOf(
        await follow(app, id, undefined, { "last-event-id": bad }),
        400,
      );
      expect(refused).toMatchObject({ type: "invalid_request_error" });
      expect(refused.message).toMatch(/Last-Event-ID/);
    }
    await cancel(app, id);
    await creator.body!.cancel();
    const unknown = await follow(app, "0123456789abcdef0123456789abcdef");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({
      error: expect.objectContaining({ type: "invalid_request_error", code: "stream_not_found" }),
    });
  });

  it("an upstream failure before the answer begins is an HTTP error in the protocol's shape", async () => {
    const { app } = streamsRelay("status=422");
    const response = await post(app, path, body);
    expect(response.status).toBe(422);
    expect(response.headers.get("x-stopstream-stream-id")).toBeNull();
    const json = await response.json() as Json;
    if (route.protocol === "anthropic-messages") {
      expect(json).toEqual({
        type: "error",
        error: { type: "invalid_request_error", message: expect.stringContaining("status=422") },
      });
    } else {
      expect(json).toEqual({
        error: expect.objectContaining({ message: expect.stringContaining("status=422") }),
      });
    }
  });
});

/** An SDK client whose every request gets `response` (a stream read as the relay sent it). */
function answering(response: Response): typeof fetch {
  return () => Promise.resolve(response);
}

describe("the official SDKs reading a stream the relay ended", () => {
  const [messages, responses] = ROUTES as [(typeof ROUTES)[0], (typeof ROUTES)[1]];
  const params = {
    model: "m",
    max_tokens: 100,
    messages: [{ role: "user" as const, content: "hi" }],
  };

  it("@anthropic-ai/sdk: a restart mid-call is an error, its events never end as if whole", async () => {
    const { id, app } = await crashed(
      messages.protocol,
      await wholeAnswer(messages.path, messages.body),
      5,
    );
    const client = new Anthropic({
      apiKey: "k",
      maxRetries: 0,
      fetch: answering(await follow(app, id)),
    });
    // The SDK's raw events: an error event without its name (OpenAI's shape) is skipped.
    const events: string[] = [];
    const iterate = async (): Promise<void> => {
      for await (const event of await client.messages.create({ ...params, stream: true })) {
        events.push(event.type);
      }
    };
    const error = await iterate().catch((error: unknown) => error);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toMatch(/restarted/);
    expect(events).toContain("content_block_delta");
    expect(events).not.toContain("message_stop");
  });

  it("@anthropic-ai/sdk: an expiry under the reader is an error, not a shorter message", async () => {
    const { app, id } = await finishedLong(messages.path, messages.body);
    const client = new Anthropic({
      apiKey: "k",
      maxRetries: 0,
      fetch: answering(await readerOfExpired(app, id)),
    });
    await expect(client.messages.stream(params).finalMessage()).rejects.toThrow(/expired/);
  });

  it("openai responses: a restart mid-call ends in response.failed, then an error it throws", async () => {
    const { id, app } = await crashed(
      responses.protocol,
      await wholeAnswer(responses.path, responses.body),
      5,
    );
    const client = new OpenAI({
      apiKey: "k",
      maxRetries: 0,
      fetch: answering(await follow(app, id)),
    });
    const stream = client.responses.stream({ model: "m", input: "hi" });
    const events: string[] = [];
    stream.on("event", (event) => events.push(event.type));
    await expect(stream.finalResponse()).rejects.toThrow(/restarted/);
    expect(events).toContain("response.failed");
    expect(events).not.toContain("response.completed");
  });

  it("openai responses: an expiry under the reader ends in response.failed, then an error", async () => {
    const { app, id } = await finishedLong(responses.path, responses.body);
    const client = new OpenAI({
      apiKey: "k",
      maxRetries: 0,
      fetch: answering(await readerOfExpired(app, id)),
    });
    const stream = client.responses.stream({ model: "m", input: "hi" });
    const events: string[] = [];
    stream.on("event", (event) => events.push(event.type));
    await expect(stream.finalResponse()).rejects.toThrow(/expired/);
    expect(events).toContain("response.failed");
  });
});
