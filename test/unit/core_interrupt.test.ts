import { describe, expect, test } from "vitest";
import { InterruptedError } from "../../src/core/error_classes.ts";
import { isInterruptedError } from "../../src/core/error_guards.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import {
  after,
  gate,
  jsonReply,
  networkError,
  noAnswer,
  sseReply,
  useMockUpstream,
} from "../support/msw.ts";
import { chunk, collect, openAIText, settlesNow, sse, trackListeners } from "../support/sse.ts";
import { BODY, options, rejection } from "../support/chat.ts";
import { useFakeClock } from "../support/clock.ts";

const upstream = useMockUpstream();
// No further request is proved by jumping the clock past every backoff, not by sleeping.
useFakeClock();

describe("the three motivating scenarios", () => {
  test("(a) an interrupt while the first attempt fails with a connection error: one request, InterruptedError", async () => {
    const failNow = gate();
    upstream.reply(after(failNow.promise, networkError), sseReply(openAIText(["ok"])));
    const controller = new AbortController();
    const stream = streamChat(options({ signal: controller.signal }));
    const result = stream.result;
    await upstream.entered(1);
    controller.abort();
    failNow.open();
    const error = await rejection(result);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as Error).message).toMatch(/interrupted/);
    expect((error as InterruptedError).attempts).toBe(1);
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(1);
  });

  test("(a') the abort lands in the same turn as the connection error: still no retry", async () => {
    const controller = new AbortController();
    let calls = 0;
    const fetchFn: typeof fetch = () => {
      calls++;
      controller.abort(new Error("user pressed stop"));
      return Promise.reject(new TypeError("fetch failed"));
    };
    const stream = streamChat(options({ signal: controller.signal, fetch: fetchFn }));
    const error = await rejection(stream.result);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as Error).message).toMatch(/interrupted/);
    expect((error as Error).cause).toEqual(new Error("user pressed stop"));
    // The injected fetch is the server here: it saw exactly one request.
    await upstream.expectNoMoreRequests();
    expect(calls).toBe(1);
    expect(upstream.count).toBe(0);
  });

  test("(b) a signal already aborted: zero requests, InterruptedError with the signal's reason", async () => {
    upstream.reply(sseReply(openAIText(["ok"])));
    const reason = new Error("gone before we started");
    const stream = streamChat(options({ signal: AbortSignal.abort(reason) }));
    const error = await rejection(stream.result);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as Error).message).toBe(
      "stopstream: the call was interrupted by its AbortSignal; nothing more is sent or read",
    );
    expect((error as Error).cause).toBe(reason);
    expect((error as InterruptedError).attempts).toBe(0);
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(0);
  });

  test("(b') a signal already aborted also ends an iteration at once: zero requests", async () => {
    upstream.reply(sseReply(openAIText(["ok"])));
    const stream = streamChat(options({ signal: AbortSignal.abort() }));
    const { events, error } = await collect(stream);
    expect(events).toEqual([]);
    expect(isInterruptedError(error)).toBe(true);
    expect((error as InterruptedError).attempts).toBe(0);
    expect(upstream.count).toBe(0);
  });

  test("(c) two transient connection failures then a healthy stream: three requests, content ok", async () => {
    upstream.reply(networkError, networkError, sseReply(openAIText(["o", "k"])));
    const stream = streamChat(options());
    const result = await stream.result;
    expect(result.content).toBe("ok");
    expect(result.attempts).toBe(3);
    expect(result.finishReason).toBe("stop");
    expect(upstream.count).toBe(3);
    // Every attempt sent the same request.
    expect(upstream.requests.map((r) => r.body)).toEqual(
      Array(3).fill({ ...BODY, stream: true, stream_options: { include_usage: true } }),
    );
  });
});

describe("an abort in each phase rejects at once and makes no further request", () => {
  test("waiting for headers", async () => {
    upstream.reply(noAnswer, sseReply(openAIText(["ok"])));
    const controller = new AbortController();
    const stream = streamChat(options({ signal: controller.signal }));
    const result = stream.result;
    const seen = await upstream.entered(1);
    const reason = new Error("stop");
    controller.abort(reason);
    const outcome = await settlesNow(result);
    expect(outcome).not.toBe("pending");
    const error = (outcome as { rejected: unknown }).rejected;
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as Error).cause).toBe(reason);
    expect((error as InterruptedError).attempts).toBe(1);
    // The fetch was aborted: the mock server's request signal fired.
    expect(seen.signal.aborted).toBe(true);
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(1);
  });

  test("mid-stream, after content: InterruptedError (not a partial), the request aborted", async () => {
    upstream.reply(
      sseReply([sse(chunk({ content: "Hel" })), { hold: true }]),
      sseReply(openAIText(["ok"])),
    );
    const controller = new AbortController();
    const stream = streamChat(options({ signal: controller.signal }));
    const result = stream.result;
    const texts: string[] = [];
    let outcome: Awaited<ReturnType<typeof settlesNow>> | undefined;
    let iterationError: unknown;
    try {
      for await (const event of stream) {
        if (event.type !== "text") continue;
        texts.push(event.text);
        controller.abort();
        outcome = await settlesNow(result);
      }
    } catch (error) {
      iterationError = error;
    }
    expect(texts).toEqual(["Hel"]);
    expect(outcome).toEqual({ rejected: expect.any(InterruptedError) });
    expect(iterationError).toBeInstanceOf(InterruptedError);
    expect((iterationError as InterruptedError).attempts).toBe(1);
    expect(upstream.requests[0]!.signal.aborted).toBe(true);
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(1);
  });

  test("mid-stream, result only (nobody iterates)", async () => {
    const readOn = gate();
    upstream.reply(
      sseReply([sse(chunk({ content: "Hel" })), { run: readOn.open }, { hold: true }]),
    );
    const controller = new AbortController();
    const stream = streamChat(options({ signal: controller.signal }));
    const result = stream.result;
    const seen = await upstream.entered(1);
    // The client took the first chunk and asked for more: stop now.
    await readOn.promise;
    controller.abort();
    expect(await settlesNow(result)).toEqual({
      rejected: expect.objectContaining({ name: "InterruptedError", attempts: 1 }),
    });
    expect(seen.signal.aborted).toBe(true);
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(1);
  });

  test("sleeping in backoff: rejects in the same turn, the sleep is not waited out", async () => {
    upstream.reply(jsonReply(503, { error: { message: "busy" } }), sseReply(openAIText(["ok"])));
    const controller = new AbortController();
    // A 30 s backoff: if the abort waited it out, the test would time out.
    const stream = streamChat(options({
      signal: controller.signal,
      retry: { initialDelayMs: 30_000, maxDelayMs: 30_000 },
    }));
    const result = stream.result;
    let outcome: ReturnType<typeof settlesNow> | undefined;
    const { events, error } = await collect(stream, (event) => {
      if (event.type !== "retry") return;
      controller.abort();
      outcome = settlesNow(result);
    });
    expect(events.map((e) => e.type)).toEqual(["retry"]);
    expect(events[0]).toMatchObject({ attempt: 2, delayMs: 30_000 });
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).attempts).toBe(1);
    expect(await outcome).toEqual({ rejected: error });
    await upstream.expectNoMoreRequests(); // not even once the 30 s are over
    expect(upstream.count).toBe(1);
  });

  test("sleeping in a short backoff: the timer is cleared, no second request ever comes", async () => {
    upstream.reply(networkError, sseReply(openAIText(["ok"])));
    const controller = new AbortController();
    const stream = streamChat(options({
      signal: controller.signal,
      retry: { initialDelayMs: 10, maxDelayMs: 10 },
    }));
    const { error } = await collect(stream, (event) => {
      if (event.type === "retry") controller.abort();
    });
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as InterruptedError).attempts).toBe(1);
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(1);
  });

  test("break: the result rejects with InterruptedError that counts the requests made", async () => {
    upstream.reply(networkError, sseReply([sse(chunk({ content: "Hel" })), { hold: true }]));
    const stream = streamChat(options({ retry: { initialDelayMs: 1, maxDelayMs: 1 } }));
    for await (const event of stream) if (event.type === "text") break;
    const error = await rejection(stream.result);
    expect(error).toBeInstanceOf(InterruptedError);
    expect((error as Error).message).toMatch(/stopped iterating/);
    expect((error as InterruptedError).attempts).toBe(2);
    expect(upstream.requests[1]!.signal.aborted).toBe(true);
    expect(upstream.count).toBe(2);
  });
});

describe("an abort while a response body is being checked", () => {
  test("while reading a slow error body: InterruptedError at once, no retry", async () => {
    const started = gate();
    upstream.reply(
      sseReply(['{"error":', { run: started.open }, { hold: true }], {
        status: 503,
        headers: { "content-type": "application/json" },
      }),
      sseReply(openAIText(["ok"])),
    );
    const controller = new AbortController();
    const result = streamChat(options({ signal: controller.signal })).result;
    await started.promise;
    controller.abort();
    expect(await settlesNow(result)).toEqual({
      rejected: expect.objectContaining({ name: "InterruptedError", attempts: 1 }),
    });
    expect(upstream.requests[0]!.signal.aborted).toBe(true);
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(1);
  });
});

describe("after completion", () => {
  test("an abort after completion changes nothing: the result stays a success", async () => {
    upstream.reply(sseReply(openAIText(["ok"])));
    const controller = new AbortController();
    const stream = streamChat(options({ signal: controller.signal }));
    const result = await stream.result;
    controller.abort();
    expect(await stream.result).toBe(result);
    expect(result.content).toBe("ok");
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(1);
  });

  test("a long-lived signal shared by many calls collects no listeners", async () => {
    upstream.reply(sseReply(openAIText(["ok"])));
    const controller = new AbortController();
    const signal = controller.signal;
    const live = trackListeners(signal);

    // Successes, by result and by iteration.
    for (let i = 0; i < 10; i++) await streamChat(options({ signal })).result;
    for (let i = 0; i < 5; i++) await collect(streamChat(options({ signal })));
    expect(live()).toBe(0);
    // A failure, and an iteration stopped by `break`.
    upstream.reply(jsonReply(400, { error: { message: "bad" } }));
    await rejection(streamChat(options({ signal })).result);
    upstream.reply(sseReply([sse(chunk({ content: "a" })), { hold: true }]));
    for await (const event of streamChat(options({ signal }))) if (event.type === "text") break;
    // Streams created but never started add nothing either.
    streamChat(options({ signal }));
    expect(live()).toBe(0);
    expect(upstream.count).toBe(17);
  });
});
