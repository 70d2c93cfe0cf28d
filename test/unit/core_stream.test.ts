import { describe, expect, test } from "vitest";
import { InterruptedError, PartialStreamError } from "../../src/core/error_classes.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamEvent } from "../../src/core/chat_result.ts";
import { gate, sseReply, useMockUpstream } from "../support/msw.ts";
import {
  chunk,
  collect,
  delay,
  DONE,
  ofType,
  type ScriptedBody,
  scriptedBody,
  sse,
  type Step,
  trackListeners,
  usageChunk,
} from "../support/sse.ts";
import { options } from "../support/chat.ts";
import { useFakeClock } from "../support/clock.ts";

const upstream = useMockUpstream();

/** A paced stream: one chunk per event, `parts` as text, usage, [DONE]. */
function paced(parts: string[], delayMs = 1): Step[] {
  const steps: Step[] = [sse(chunk({ role: "assistant", content: "" }))];
  for (const part of parts) steps.push({ delayMs }, sse(chunk({ content: part })));
  steps.push(
    sse(chunk({}, "stop")),
    sse(usageChunk({ prompt_tokens: 1, completion_tokens: parts.length })),
    DONE,
  );
  return steps;
}

/** An injected fetch that answers with `body`'s stream and counts its calls. */
function serving(body: ScriptedBody): { fetch: typeof fetch; calls(): number } {
  let calls = 0;
  const fetchFn: typeof fetch = () => {
    calls++;
    return Promise.resolve(
      new Response(body.stream, { headers: { "content-type": "text/event-stream" } }),
    );
  };
  return { fetch: fetchFn, calls: () => calls };
}

const PARTS = ["a", "b", "c", "d", "e"];
const EXPECTED_TYPES = ["open", "text", "text", "text", "text", "text", "usage", "finish"];

describe("result and iteration", () => {
  test("awaiting result alone drives the stream to its end", async () => {
    upstream.reply(sseReply(paced(PARTS)));
    const result = await streamChat(options()).result;
    expect(result.content).toBe("abcde");
    expect(result.usage?.outputTokens).toBe(5);
    const seen = upstream.requests[0]!;
    expect(seen.stream!.sent).toBe(paced(PARTS).filter((s) => typeof s === "string").length);
    expect(upstream.count).toBe(1);
  });

  test("iterating, then awaiting result: every event, and finish carries the same result", async () => {
    upstream.reply(sseReply(paced(PARTS)));
    const stream = streamChat(options());
    const events: StreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;
    expect(events.map((e) => e.type)).toEqual(EXPECTED_TYPES);
    expect(ofType(events, "finish")[0]!.result).toBe(result);
    expect(upstream.count).toBe(1);
  });

  test("reading result first, then iterating in the same turn, loses no event", async () => {
    upstream.reply(sseReply(paced(PARTS)));
    const stream = streamChat(options());
    const result = stream.result;
    const events: StreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((e) => e.type)).toEqual(EXPECTED_TYPES);
    expect(ofType(events, "text").map((e) => e.text).join("")).toBe((await result).content);
    expect(upstream.count).toBe(1);
  });

  test("iterating and awaiting result concurrently (Promise.all) loses no event", async () => {
    upstream.reply(sseReply(paced(PARTS)));
    const stream = streamChat(options());
    const [collected, result] = await Promise.all([collect(stream), stream.result]);
    expect(collected.events.map((e) => e.type)).toEqual(EXPECTED_TYPES);
    expect(collected.result).toBe(result);
    expect(upstream.count).toBe(1);
  });

  test("a stream is iterated once; a result-only run under way cannot be iterated", async () => {
    upstream.reply(sseReply(paced(PARTS)));
    const stream = streamChat(options());
    const iterator = stream[Symbol.asyncIterator]();
    expect(() => stream[Symbol.asyncIterator]()).toThrow(TypeError);
    while (!(await iterator.next()).done);
    await stream.result;

    const resultOnly = streamChat(options());
    const pending = resultOnly.result;
    await upstream.entered(2);
    expect(() => resultOnly[Symbol.asyncIterator]()).toThrow(TypeError);
    await pending;
    expect(upstream.count).toBe(2);
  });

  test("a failure after content: the events that arrived are yielded before the error", async () => {
    upstream.reply(sseReply([sse(chunk({ content: "Hel" })), sse(chunk({ content: "lo" })), {
      error: new Error("reset"),
    }]));
    const stream = streamChat(options());
    const { events, error } = await collect(stream);
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["Hel", "lo"]);
    expect(error).toBeInstanceOf(PartialStreamError);
    await expect(stream.result).rejects.toBe(error);
    expect(upstream.count).toBe(1);
  });
});

describe("stopping the iteration", () => {
  useFakeClock();

  test("break cancels the upstream request and rejects result with InterruptedError", async () => {
    upstream.reply(sseReply([sse(chunk({ content: "Hel" })), { hold: true }]));
    const stream = streamChat(options());
    for await (const event of stream) if (event.type === "text") break;
    await expect(stream.result).rejects.toBeInstanceOf(InterruptedError);
    await expect(stream.result).rejects.toThrow(/interrupted/);
    expect(upstream.requests[0]!.signal.aborted).toBe(true);
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(1);
  });

  test("break on the finish event keeps the success", async () => {
    upstream.reply(sseReply(paced(PARTS)));
    const stream = streamChat(options());
    for await (const event of stream) if (event.type === "finish") break;
    expect((await stream.result).content).toBe("abcde");
    expect(upstream.count).toBe(1);
  });

  test("a throw inside the loop body stops the call like break", async () => {
    upstream.reply(sseReply([sse(chunk({ content: "Hel" })), { hold: true }]));
    const stream = streamChat(options());
    await expect((async () => {
      for await (const event of stream) if (event.type === "text") throw new Error("consumer bug");
    })()).rejects.toThrow("consumer bug");
    await expect(stream.result).rejects.toBeInstanceOf(InterruptedError);
    expect(upstream.requests[0]!.signal.aborted).toBe(true);
    expect(upstream.count).toBe(1);
  });
});

describe("backpressure", () => {
  test("a consumer that does not pull stops the reads; nothing buffers without bound", async () => {
    const CHUNKS = 2000;
    const steps: Step[] = [sse(chunk({ role: "assistant", content: "" }))];
    for (let i = 0; i < CHUNKS; i++) steps.push(sse(chunk({ content: "x" })));
    steps.push(sse(chunk({}, "stop")), DONE);
    const body = scriptedBody(steps);
    const served = serving(body);
    const stream = streamChat(options({ fetch: served.fetch }));
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "open" });
    expect((await iterator.next()).value).toMatchObject({ type: "text", text: "x" });
    // The consumer stalls. An in-memory source could be drained in well under this time.
    await delay(30);
    const pullsWhileStalled = body.pulls;
    expect(pullsWhileStalled).toBeLessThanOrEqual(5);
    await delay(10);
    expect(body.pulls).toBe(pullsWhileStalled);
    // Resuming drains everything, in order.
    let texts = 1;
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      if (next.value.type === "text") texts++;
    }
    expect(texts).toBe(CHUNKS);
    expect((await stream.result).content).toBe("x".repeat(CHUNKS));
    expect(body.sent).toBe(steps.length);
    expect(served.calls()).toBe(1);
  });

  test("iterating a little, then awaiting result alone: result waits for the iteration (documented)", async () => {
    // docs/options.md: once you iterate, the call goes at the pace you take events, `result`
    // included; this pins that down (it is not a leak: the reads stop, nothing buffers).
    const steps: Step[] = [sse(chunk({ role: "assistant", content: "" }))];
    for (let i = 0; i < 500; i++) steps.push(sse(chunk({ content: "z" })));
    steps.push(sse(chunk({}, "stop")), DONE);
    const body = scriptedBody(steps);
    const stream = streamChat(options({ fetch: serving(body).fetch }));
    const iterator = stream[Symbol.asyncIterator]();
    expect((await iterator.next()).value).toMatchObject({ type: "open" });
    const settled = stream.result.then(() => "resolved", () => "rejected");
    // Given time to run on, it does not (an in-memory source is read in well under this).
    expect(await Promise.race([settled, delay(30).then(() => "waiting")])).toBe("waiting");
    expect(body.sent).toBeLessThan(steps.length);
    while (!(await iterator.next()).done); // the iteration goes on: result follows
    expect(await settled).toBe("resolved");
    expect((await stream.result).content).toBe("z".repeat(500));
  });

  test("result-only callers are not throttled: no events are queued for them", async () => {
    const steps: Step[] = [];
    for (let i = 0; i < 500; i++) steps.push(sse(chunk({ content: "y" })));
    steps.push(sse(chunk({}, "stop")), DONE);
    const body = scriptedBody(steps);
    const served = serving(body);
    const result = await streamChat(options({ fetch: served.fetch })).result;
    expect(result.content).toBe("y".repeat(500));
    expect(body.sent).toBe(steps.length);
    expect(served.calls()).toBe(1);
  });

  test("a consumer that pauses between events still gets every event (gate-driven)", async () => {
    upstream.reply(sseReply(paced(PARTS, 0)));
    const stream = streamChat(options());
    const iterator = stream[Symbol.asyncIterator]();
    const types: string[] = [];
    for (;;) {
      const g = gate();
      setTimeout(g.open, 1);
      await g.promise;
      const next = await iterator.next();
      if (next.done) break;
      types.push(next.value.type);
    }
    expect(types).toEqual(EXPECTED_TYPES);
    expect(upstream.count).toBe(1);
  });
});

describe("an iterator closed before its first next()", () => {
  useFakeClock();

  test("sends nothing, rejects result, and leaves no listener on the signal", async () => {
    upstream.reply(sseReply(paced(PARTS)));
    const controller = new AbortController();
    const signal = controller.signal;
    const live = trackListeners(signal);
    const stream = streamChat(options({ signal }));
    const iterator = stream[Symbol.asyncIterator]();
    expect(await iterator.return!()).toEqual({ done: true, value: undefined });
    await expect(stream.result).rejects.toBeInstanceOf(InterruptedError);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect(live()).toBe(0);
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(0);
  });
});
