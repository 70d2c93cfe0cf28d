/**
 * Waits longer than a timer holds (2^31 - 1 ms, about 24.8 days): `setTimeout` fires such a
 * timer at once, so a backoff or a load limit past it must never reach one.
 */
import { expect, test } from "vitest";
import { CallControl } from "../../src/call_control.ts";
import { ChatStream } from "../../src/chat_stream.ts";
import { lazy } from "../../src/lazy.ts";
import { anthropicMessages } from "../../src/protocols/anthropic_messages.ts";
import type { Protocol } from "../../src/protocols/protocol.ts";
import { planCall, streamChat } from "../../src/stream_chat.ts";
import type { StreamEvent } from "../../src/chat_result.ts";
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

test("a headersMs past the timer's range does not make a module's load time out at once", async () => {
  let requests = 0;
  const plan = planCall({
    baseURL: "https://provider.invalid/v1",
    protocol: "anthropic-messages",
    body: { model: "m", messages: [] },
    fetch: () => {
      requests++;
      return Promise.reject(new Error("sent: the decoder had loaded"));
    },
    maxRetries: 0,
    timeouts: { headersMs: 3_000_000_000 },
  });
  // A chunk that arrives a few milliseconds later than at once (a download, a cold import);
  // the wait stands for the network, not for synchronisation.
  const slowLoad = lazy("the anthropic-messages decoder", async (): Promise<Protocol> => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return await anthropicMessages.load(new CallControl());
  });
  plan.targets[0]!.protocol = { ...anthropicMessages, load: slowLoad };
  const error = await rejection(new ChatStream(plan).result);
  expect({ message: (error as Error).message, requests }).toEqual({
    message: expect.stringContaining("the request could not be sent"),
    requests: 1,
  });
});
