/**
 * Helpers for the resumable-stream tests in workerd: a relay on the `STREAMS` Durable Object
 * binding whose upstream is the shared fault server (a real loopback socket, so a cancel is a
 * connection the server sees close), and SSE parsing that keeps the `id:` of every event.
 *
 * @module
 */

import { env } from "cloudflare:workers";
import type { Hono } from "hono";
import { expect, inject } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import type { RelayOptions } from "../../src/relay/options.ts";
import type { StreamAnswer, StreamMeta } from "../../src/relay/streams/stream_store.ts";
import { chatBody, postChat } from "./helpers.ts";

// What fault_server.global.ts provides (that file runs in Node, outside this tsconfig).
declare module "vitest" {
  export interface ProvidedContext {
    faultOrigin: string;
  }
}

const origin = inject("faultOrigin");
let counter = 0;

/** One SSE event with its id (comments are left out). */
export interface NumberedEvent {
  id: string | undefined;
  data: string;
}

/**
 * A relay with resumable streams (unless `bound` is false: no `streams` namespace), its
 * upstream the fault server under a fresh test id, with `faults` in the path.
 */
export function streamsRelay(
  faults = "",
  options: RelayOptions = {},
  { bound = true, apiKey }: { bound?: boolean; apiKey?: string } = {},
): { app: Hono; testId: string } {
  const testId = `streams-${Date.now()}-${++counter}`;
  const path = faults === "" ? "" : `/f/${encodeURIComponent(faults)}`;
  const baseURL = `${origin}/t/${testId}${path}/v1`;
  const app = createRelay({
    upstreams: [apiKey === undefined ? { baseURL } : { baseURL, apiKey }],
    ...(bound ? { streams: env.STREAMS } : {}),
    retry: { initialDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
  return { app, testId };
}

/** POST a streaming chat request asking for a resumable stream. */
export function startResumable(
  app: Pick<Hono, "request">,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return postChat(app, chatBody({ stream: true }), {
    headers: { "x-stopstream-resumable": "true", ...headers },
    ...(signal ? { signal } : {}),
  });
}

/** `GET /v1/streams/{id}`, with `Last-Event-ID` when `after` is given. */
export function follow(
  app: Pick<Hono, "request">,
  id: string,
  after?: number,
  headers: Record<string, string> = {},
): Promise<Response> {
  const extra: Record<string, string> = after === undefined ? {} : { "last-event-id": `${after}` };
  return Promise.resolve(
    app.request(`http://relay.test/v1/streams/${id}`, { headers: { ...extra, ...headers } }),
  );
}

/**
 * Checks a resume after a caller got events 1..`count` and dropped: `GET /v1/streams/{id}` with
 * `Last-Event-ID: count` gets exactly the rest (from `count + 1` to `[DONE]`), and the two
 * together are the whole stream as a fresh reader replays it. Returns the whole stream.
 */
export async function expectResumedRest(
  app: Pick<Hono, "request">,
  id: string,
  first: NumberedEvent[],
  count: number,
): Promise<NumberedEvent[]> {
  expect(first.map((e) => e.id)).toEqual(ids(count));
  const rest = eventsOf(await (await follow(app, id, count)).text());
  expect(rest[0]?.id).toBe(`${count + 1}`);
  expect(rest.at(-1)?.data).toBe("[DONE]");
  const whole = eventsOf(await (await follow(app, id)).text());
  expect([...first, ...rest]).toEqual(whole);
  return whole;
}

/** `POST /v1/streams/{id}/cancel`. */
export function cancel(
  app: Pick<Hono, "request">,
  id: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(
    app.request(`http://relay.test/v1/streams/${id}/cancel`, { method: "POST", headers }),
  );
}

/** The event ids `from`, `from + 1`, … (`count` of them), as the stream numbers them. */
export function ids(count: number, from = 1): string[] {
  return Array.from({ length: count }, (_, i) => String(from + i));
}

/** The events of a complete SSE text, in order, with their ids. */
export function eventsOf(raw: string): NumberedEvent[] {
  const events: NumberedEvent[] = [];
  for (const block of raw.split("\n\n")) {
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("id: ")) id = line.slice(4);
      else if (line.startsWith("data: ")) data.push(line.slice(6));
    }
    if (data.length > 0) events.push({ id, data: data.join("\n") });
  }
  return events;
}

/**
 * The raw SSE text without comment lines (keep-alives vary by timing, events must not). The relay
 * writes a comment as a line of its own, with no blank line after it.
 */
export function withoutComments(raw: string): string {
  return raw.split("\n").filter((line) => !line.startsWith(":")).join("\n");
}

/**
 * Reads a response until `count` events arrived, then drops the connection (cancels); returns
 * the first `count` (a write may have carried more).
 */
export async function readThenDrop(response: Response, count: number): Promise<NumberedEvent[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let raw = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended after ${eventsOf(raw).length} events`);
    raw += decoder.decode(value, { stream: true });
    const complete = raw.slice(0, raw.lastIndexOf("\n\n") + 2);
    const events = eventsOf(complete);
    if (events.length >= count) {
      await reader.cancel();
      return events.slice(0, count);
    }
  }
}

/** The content text of chunk events. */
export function contentOfEvents(events: NumberedEvent[]): string {
  let text = "";
  for (const event of events) {
    if (event.data === "[DONE]") continue;
    const chunk = JSON.parse(event.data) as {
      choices?: Array<{ delta?: { content?: string } }>;
    };
    text += chunk.choices?.[0]?.delta?.content ?? "";
  }
  return text;
}

/** What the fault server saw for `testId`, once the counters reach `atLeast` (or 5 s pass). */
export async function faultStats(
  testId: string,
  atLeast: Partial<Record<"requests" | "cancelled" | "completed", number>> = {},
): Promise<{ requests: number; cancelled: number; completed: number }> {
  const query = new URLSearchParams({ timeout: "5000" });
  for (const [key, value] of Object.entries(atLeast)) query.set(key, String(value));
  const response = await fetch(`${origin}/t/${testId}/stats?${query}`);
  return await response.json();
}

/** The stub of a stream's Durable Object. */
export function streamStub(id: string) {
  return env.STREAMS.get(env.STREAMS.idFromName(id));
}

/** The `stream` row of a stream that has just started, as `RelayStream` writes it. */
export function runningMeta(
  id: string,
  created = Date.now(),
  answer: StreamAnswer = { protocol: "openai-chat", id: "chatcmpl-1", model: "m" },
): StreamMeta {
  return {
    id,
    owner: "",
    status: "running",
    created,
    ended: null,
    expires: null,
    ttl: 60_000,
    keepAlive: 15_000,
    events: 0,
    bytes: 0,
    writes: 0,
    answer,
  };
}
