/**
 * Waits longer than a timer holds (2^31 - 1 ms, about 24.8 days): `setTimeout` fires such a
 * timer at once, so a backoff past it must never reach one (a load limit past it: lazy.test.ts).
 */
import { expect, test } from "vitest";
import type { ChatStream } from "../../src/client/stream_chat.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamEvent } from "../../src/core/chat_result.ts";
import { jsonReply, useMockUpstream } from "../support/msw.ts";
import { OK, options, rejection } from "../support/chat.ts";

const upstream = useMockUpstream();
const DOWN = () => jsonReply(503, { error: { message: "down" } }, { "retry-after": "3000000" });

/** The events until the call ends (it fails: no retry it could sleep through). */
async function eventsOf(stream: ChatStream): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  await rejection((async () => {
    for await (const event of stream) events.push(event);
  })());
  return events;
}

test("a Retry-After of 35 days with maxRetryAfterMs: Infinity ends the call, not a retry at once", async () => {
  upstream.reply(DOWN(), OK);
  const stream = streamChat(options({
    retry: { initialDelayMs: 1, maxDelayMs: 2, maxRetryAfterMs: Infinity },
  }));
  const events = await eventsOf(stream);
  const error = await rejection(stream.result);
  expect({ retries: events.filter((e) => e.type === "retry").length, requests: upstream.count })
    .toEqual({ retries: 0, requests: 1 });
  expect(error).toMatchObject({ name: "APIStatusError", status: 503 });
});

test.each([
  ["past the timer's range", 3_000_000_000],
  ["infinite (a NaN delay, once jittered)", Infinity],
])("a backoff %s ends the call", async (_what, delay) => {
  upstream.reply(jsonReply(503, { error: { message: "down" } }), OK);
  const stream = streamChat(options({ retry: { initialDelayMs: delay, maxDelayMs: delay } }));
  const events = await eventsOf(stream);
  expect({ retries: events.filter((e) => e.type === "retry").length, requests: upstream.count })
    .toEqual({ retries: 0, requests: 1 });
});
