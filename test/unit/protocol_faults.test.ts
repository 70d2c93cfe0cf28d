/**
 * The core client's fault suite, run once per wire protocol: every protocol must stream,
 * recover and stop the same way.
 */

import { describe, expect, test } from "vitest";
import {
  type ChatResult,
  isAPIStatusError,
  isConnectionError,
  isInterruptedError,
  isPartialStreamError,
  isTimeoutError,
  isUpstreamStreamError,
  streamChat,
} from "../../src/index.ts";
import { useMswServer } from "../support/msw.ts";
import {
  answer,
  answers,
  collect,
  errorResponse,
  optionsFor,
  sseResponse,
  upstream,
  WIRES,
} from "./protocol_wire.ts";

const server = useMswServer();

const BASE = "https://llm.test/v1";

const options = optionsFor(BASE, "m-1");

describe.each(WIRES)("$protocol under faults", (wire) => {
  test("a complete stream yields text events, usage and a stop result", async () => {
    const up = upstream(server, BASE, wire, answers(wire, "Hel", "lo"));
    const run = await collect(streamChat(options(wire)));
    expect(run.error).toBeUndefined();
    expect(run.text).toBe("Hello");
    expect(run.result).toMatchObject({ content: "Hello", finishReason: "stop", attempts: 1 });
    expect(run.result?.usage?.outputTokens).toBeGreaterThan(0);
    expect(run.result?.target).toEqual({
      index: 0,
      baseURL: BASE,
      protocol: wire.protocol,
      model: "m-1",
    });
    expect(run.events.filter((e) => e.type === "usage").length).toBeGreaterThan(0);
    expect(up.count).toBe(1);
  });

  test("a drop before any content is retried and the caller sees the text once", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (n, req) =>
        n === 1
          ? sseResponse(req, wire.start(), "drop")
          : sseResponse(req, answer(wire, "One", " two")),
    );
    const run = await collect(streamChat(options(wire)));
    expect(run.text).toBe("One two");
    expect(run.result).toMatchObject({ content: "One two", attempts: 2 });
    const retry = run.events.find((e) => e.type === "retry");
    expect(retry?.type === "retry" && isConnectionError(retry.error)).toBe(true);
    expect(up.count).toBe(2);
  });

  test("a transient error event before content is retried; a fatal one is not", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (n, req) =>
        n === 1
          ? sseResponse(req, [...wire.start(), wire.streamError("transient")])
          : n === 2
          ? sseResponse(req, answer(wire, "ok"))
          : sseResponse(req, [...wire.start(), wire.streamError("fatal")]),
    );
    expect((await streamChat(options(wire)).result).content).toBe("ok");
    expect(up.count).toBe(2);
    const error = await streamChat(options(wire)).result.catch((e: unknown) => e);
    expect(isUpstreamStreamError(error) && !error.retryable).toBe(true);
    expect(up.count).toBe(3);
  });

  test("a drop after content is not retried: PartialStreamError keeps the text", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (_n, req) => sseResponse(req, [...wire.start(), wire.text("Half an ")], "drop"),
    );
    const run = await collect(streamChat(options(wire)));
    expect(isPartialStreamError(run.error)).toBe(true);
    if (!isPartialStreamError(run.error)) {
      return;
    }
    expect(run.error.partial.content).toBe("Half an ");
    expect(isConnectionError(run.error.cause)).toBe(true);
    expect(run.text).toBe("Half an ");
    expect(up.count).toBe(1);
  });

  // The README's "no duplicate output": reasoning and a tool call are output too.
  test.each([
    ["reasoning", () => wire.reasoning("Let me think")],
    ["a tool call", () => wire.toolCall("call_1", "get_weather", '{"city":')],
  ])("a drop after %s alone is not retried: PartialStreamError, one request", async (_, sent) => {
    const up = upstream(
      server,
      BASE,
      wire,
      (_n, req) => sseResponse(req, [...wire.start(), sent()], "drop"),
    );
    const error = await streamChat(options(wire)).result.catch((e: unknown) => e);
    expect(isPartialStreamError(error)).toBe(true);
    expect(up.count).toBe(1);
  });

  test("a drop after content with onPartial 'return' resolves with a partial result", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (_n, req) => sseResponse(req, [...wire.start(), wire.text("Half")], "drop"),
    );
    const result = await streamChat(options(wire, { onPartial: "return" })).result;
    expect(result).toMatchObject({ content: "Half", partial: true, attempts: 1 });
    expect(isConnectionError(result.error)).toBe(true);
    expect(up.count).toBe(1);
  });

  test("a stall behind keep-alives is an idle TimeoutError, retried", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (n, req) =>
        n === 1
          ? sseResponse(req, wire.start(), { pingEveryMs: 5, pings: wire })
          : sseResponse(req, answer(wire, "awake")),
    );
    const run = await collect(streamChat(options(wire, { timeouts: { idleMs: 120 } })));
    expect(run.result?.content).toBe("awake");
    const retry = run.events.find((e) => e.type === "retry");
    expect(retry?.type === "retry" && isTimeoutError(retry.error) && retry.error.phase).toBe(
      "idle",
    );
    expect(up.count).toBe(2);
  });

  test("a stall behind keep-alives with no retries left rejects with TimeoutError", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (_n, req) => sseResponse(req, wire.start(), { pingEveryMs: 5, pings: wire }),
    );
    const error = await streamChat(options(wire, { maxRetries: 0, timeouts: { idleMs: 50 } }))
      .result.catch((e: unknown) => e);
    expect(isTimeoutError(error) && error.phase).toBe("idle");
    expect(up.count).toBe(1);
  });

  test("529 overloaded is retried", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (n, req) => n === 1 ? errorResponse(wire, 529) : sseResponse(req, answer(wire, "fine")),
    );
    const run = await collect(streamChat(options(wire)));
    expect(run.result).toMatchObject({ content: "fine", attempts: 2 });
    const retry = run.events.find((e) => e.type === "retry");
    expect(retry?.type === "retry" && isAPIStatusError(retry.error) && retry.error.status).toBe(
      529,
    );
    expect(up.count).toBe(2);
  });

  describe("abort", () => {
    const settle = (result: Promise<ChatResult>) => result.catch((e: unknown) => e);

    test("before the call starts: no request at all", async () => {
      const up = upstream(server, BASE, wire, answers(wire, "x"));
      const error = await settle(streamChat(options(wire, { signal: AbortSignal.abort() })).result);
      expect(isInterruptedError(error)).toBe(true);
      expect(up.count).toBe(0);
    });

    test("while waiting for headers", async () => {
      const controller = new AbortController();
      const up = upstream(server, BASE, wire, async (_n, req) => {
        await new Promise((resolve) => req.signal.addEventListener("abort", resolve));
        return sseResponse(req, answer(wire, "late"));
      });
      const result = settle(streamChat(options(wire, { signal: controller.signal })).result);
      await up.arrived(1);
      controller.abort(new Error("user stop"));
      const error = await result;
      expect(isInterruptedError(error) && (error.cause as Error).message).toBe("user stop");
      expect(up.count).toBe(1);
    });

    test("while waiting for the first event", async () => {
      const controller = new AbortController();
      const up = upstream(server, BASE, wire, (_n, req) => sseResponse(req, [], "hang"));
      const run = await collect(streamChat(options(wire, { signal: controller.signal })), (e) => {
        if (e.type === "open") {
          controller.abort();
        }
      });
      expect(isInterruptedError(run.error)).toBe(true);
      expect(up.count).toBe(1);
    });

    test("mid-stream, after text: no retry, no partial result", async () => {
      const controller = new AbortController();
      const up = upstream(
        server,
        BASE,
        wire,
        (_n, req) => sseResponse(req, [...wire.start(), wire.text("a"), wire.text("b")], "hang"),
      );
      const run = await collect(
        streamChat(options(wire, { signal: controller.signal, onPartial: "return" })),
        (e) => {
          if (e.type === "text") {
            controller.abort();
          }
        },
      );
      expect(isInterruptedError(run.error)).toBe(true);
      expect(run.text).toBe("a");
      expect(up.count).toBe(1);
    });

    test("during backoff: rejects at once and makes no second request", async () => {
      const controller = new AbortController();
      const up = upstream(server, BASE, wire, () => errorResponse(wire, 503));
      const started = Date.now();
      const run = await collect(
        streamChat(options(wire, { signal: controller.signal, retry: { initialDelayMs: 10_000 } })),
        (e) => {
          if (e.type === "retry") {
            controller.abort();
          }
        },
      );
      expect(isInterruptedError(run.error)).toBe(true);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(up.count).toBe(1);
    });
  });
});
