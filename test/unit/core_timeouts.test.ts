import { describe, expect, test } from "vitest";
import { PartialStreamError, TimeoutError } from "../../src/core/error_classes.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import { networkError, noAnswer, sseReply, useMockUpstream } from "../support/msw.ts";
import { chunk, collect, DONE, ofType, PING, sse, type Step } from "../support/sse.ts";
import { OK, options } from "../support/chat.ts";
import { useFakeClock } from "../support/clock.ts";

const upstream = useMockUpstream();
const ROLE = sse(chunk({ role: "assistant", content: "" }));

/** Keep-alive comments every `everyMs`, `count` times (bounded so nothing outlives a test). */
function pings(count: number, everyMs: number, text = PING): Step[] {
  const steps: Step[] = [];
  for (let i = 0; i < count; i++) steps.push({ delayMs: everyMs }, text);
  return steps;
}

describe("timeouts", () => {
  useFakeClock();

  test("headers: a server that never answers times out, is retried, then succeeds", async () => {
    upstream.reply(noAnswer, OK);
    const { events, result } = await collect(
      streamChat(options({ timeouts: { headersMs: 20 } })),
    );
    expect(result?.content).toBe("ok");
    const error = ofType(events, "retry")[0]?.error as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.phase).toBe("headers");
    expect(error.timeoutMs).toBe(20);
    // The timed-out request was aborted, not left hanging.
    expect(upstream.requests[0]!.signal.aborted).toBe(true);
    expect(upstream.count).toBe(2);
  });

  test("headers: every attempt times out → TimeoutError with the attempt count", async () => {
    upstream.reply(noAnswer);
    const { error } = await collect(
      streamChat(options({ maxRetries: 1, timeouts: { headersMs: 10 } })),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).phase).toBe("headers");
    expect((error as TimeoutError).attempts).toBe(2);
    expect(upstream.count).toBe(2);
  });

  test("first-event: headers then only pings is a stall, retried", async () => {
    upstream.reply(sseReply(pings(40, 2)), OK);
    const { events, result } = await collect(
      streamChat(options({ timeouts: { firstEventMs: 25 } })),
    );
    expect(result?.content).toBe("ok");
    const error = ofType(events, "retry")[0]?.error as TimeoutError;
    expect(error.phase).toBe("first-event");
    expect(upstream.requests[0]!.signal.aborted).toBe(true);
    expect(upstream.count).toBe(2);
  });

  test("idle: a stall behind pings is a TimeoutError (phase idle), retried", async () => {
    upstream.reply(
      sseReply([ROLE, ...pings(40, 2), ...pings(5, 2, ": OPENROUTER PROCESSING\n\n")]),
      OK,
    );
    const { events, result } = await collect(streamChat(options({ timeouts: { idleMs: 25 } })));
    expect(result?.content).toBe("ok");
    const error = ofType(events, "retry")[0]?.error as TimeoutError;
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error.phase).toBe("idle");
    expect(upstream.count).toBe(2);
  });

  test("idle: with no retries left the TimeoutError surfaces, one request", async () => {
    upstream.reply(sseReply([ROLE, ...pings(40, 2)]));
    const { error } = await collect(
      streamChat(options({ maxRetries: 0, timeouts: { idleMs: 25 } })),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).phase).toBe("idle");
    expect((error as TimeoutError).attempts).toBe(1);
    expect(upstream.count).toBe(1);
  });

  test("idle after content: PartialStreamError caused by the idle timeout, never retried", async () => {
    upstream.reply(sseReply([ROLE, sse(chunk({ content: "Hel" })), ...pings(40, 2)]), OK);
    const { error } = await collect(streamChat(options({ timeouts: { idleMs: 25 } })));
    expect(error).toBeInstanceOf(PartialStreamError);
    expect((error as PartialStreamError).partial.content).toBe("Hel");
    expect((error as PartialStreamError).cause).toMatchObject({ phase: "idle" });
    expect(upstream.count).toBe(1);
  });

  test("a slow first event within firstEventMs succeeds, although it is slower than idleMs", async () => {
    upstream.reply(
      sseReply([
        ...pings(10, 8),
        ROLE,
        sse(chunk({ content: "ok" })),
        sse(chunk({}, "stop")),
        DONE,
      ]),
    );
    const { events, result } = await collect(
      streamChat(options({ timeouts: { firstEventMs: 2_000, idleMs: 40 } })),
    );
    expect(result?.content).toBe("ok");
    expect(ofType(events, "retry")).toEqual([]);
    expect(upstream.count).toBe(1);
  });

  test("steady progress keeps the idle timer from firing, though the whole stream outlasts it", async () => {
    const steps: Step[] = [ROLE];
    for (let i = 0; i < 15; i++) {
      steps.push({ delayMs: 8 }, sse(chunk({ content: String(i % 10) })));
    }
    steps.push(sse(chunk({}, "stop")), DONE);
    upstream.reply(sseReply(steps));
    const result = await streamChat(options({ timeouts: { idleMs: 60 } })).result;
    expect(result.content).toBe("012345678901234");
    expect(upstream.count).toBe(1);
  });

  test("a slow consumer is not a stalled server: no idle timeout while the caller is busy", async () => {
    // One event per chunk, so the reader has to wait for the consumer between them.
    const events = [ROLE, ..."abc".split("").map((t) => sse(chunk({ content: t })))];
    upstream.reply(sseReply([...events, sse(chunk({}, "stop")), DONE]));
    const stream = streamChat(options({ timeouts: { idleMs: 20 } }));
    const texts: string[] = [];
    for await (const event of stream) {
      if (event.type !== "text") continue;
      texts.push(event.text);
      // The consumer is busy for longer than idleMs (a fixture delay, not a synchronisation).
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    expect(texts).toEqual(["a", "b", "c"]);
    expect((await stream.result).content).toBe("abc");
    expect(upstream.count).toBe(1);
  });

  test("totalMs ends the call with TimeoutError (phase total), never retried", async () => {
    upstream.reply(noAnswer, OK);
    const started = Date.now();
    const { error } = await collect(streamChat(options({ timeouts: { totalMs: 30 } })));
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).phase).toBe("total");
    expect((error as TimeoutError).attempts).toBe(1);
    expect((error as TimeoutError).message).toBe(
      "stopstream: the call took over 30 ms (timeouts.totalMs); try again later, or raise the limit",
    );
    expect(Date.now() - started).toBeLessThan(1000);
    expect(upstream.requests[0]!.signal.aborted).toBe(true);
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(1);
  });

  test("totalMs covers retries and backoff", async () => {
    upstream.reply(networkError);
    const { events, error } = await collect(
      streamChat(options({
        maxRetries: 100,
        retry: { initialDelayMs: 5, maxDelayMs: 5 },
        timeouts: { totalMs: 60 },
      })),
    );
    // Either the total timer fired, or the next backoff would have overrun it.
    expect(error).toMatchObject({ name: expect.stringMatching(/TimeoutError|ConnectionError/) });
    const count = upstream.count;
    expect(count).toBeGreaterThan(1);
    expect(count).toBeLessThan(20);
    // A retry is announced before its backoff: when the total timer cuts that backoff short,
    // the last announced attempt never starts; when the loop itself saw the deadline coming,
    // it announced nothing more.
    const retries = ofType(events, "retry").length;
    if ((error as Error).name === "ConnectionError") expect(retries).toBe(count - 1);
    else expect([count - 1, count]).toContain(retries);
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(count);
    expect((error as TimeoutError).attempts).toBe(count);
  });
});
