/**
 * Fallback chains: when a target has used up its retries (or does not know the model), the
 * next one starts with its own budget; never after an interrupt or after content.
 */

import { describe, expect, test } from "vitest";
import {
  isAPIStatusError,
  isInterruptedError,
  isPartialStreamError,
  streamChat,
} from "../../src/index.ts";
import { useMswServer } from "../support/msw.ts";
import { jumpPastEveryWait, useFakeClock } from "../support/clock.ts";
import { ANTHROPIC, chain, PRIMARY } from "./fallback_chain.ts";
import { anthropicWire } from "./fixtures/anthropic_wire.ts";
import { responsesWire } from "./fixtures/responses_wire.ts";
import {
  answers,
  chatWire,
  collect,
  errorResponse,
  sseResponse,
  upstream,
} from "./protocol_wire.ts";

const server = useMswServer();
// No request that should not come is proved by jumping the clock past every wait.
useFakeClock();

describe("fallback chains", () => {
  test("first target 503 ×3 → the second answers, with a fallback event and result.target", async () => {
    const first = upstream(server, PRIMARY, chatWire, () => errorResponse(chatWire, 503));
    const second = upstream(
      server,
      ANTHROPIC,
      anthropicWire,
      answers(anthropicWire, "from Claude"),
    );
    const run = await collect(streamChat(chain()));
    expect(run.result?.content).toBe("from Claude");
    expect(run.result?.attempts).toBe(4);
    expect(run.result?.target).toEqual({
      index: 1,
      baseURL: ANTHROPIC,
      protocol: "anthropic-messages",
      model: "claude-sonnet-4-5",
    });
    expect(JSON.stringify(run.result?.target)).not.toMatch(/sk-/);
    const fallbacks = run.events.filter((e) => e.type === "fallback");
    expect(fallbacks).toHaveLength(1);
    const fallback = fallbacks[0]!;
    expect(fallback.type === "fallback" && fallback.index).toBe(1);
    expect(
      fallback.type === "fallback" && isAPIStatusError(fallback.error) && fallback.error.status,
    )
      .toBe(503);
    expect(run.events.filter((e) => e.type === "retry")).toHaveLength(2);
    expect(first.count).toBe(3);
    expect(second.count).toBe(1);
  });

  test("404 for the model moves on at once, without retries", async () => {
    const first = upstream(server, PRIMARY, chatWire, () => errorResponse(chatWire, 404));
    const second = upstream(server, ANTHROPIC, anthropicWire, answers(anthropicWire, "ok"));
    const run = await collect(streamChat(chain()));
    expect(run.result?.target?.index).toBe(1);
    expect(run.events.some((e) => e.type === "retry")).toBe(false);
    expect(first.count).toBe(1);
    expect(second.count).toBe(1);
  });

  test("each target has its own retry budget; the last target's error is thrown", async () => {
    const first = upstream(server, PRIMARY, chatWire, () => errorResponse(chatWire, 503));
    const second = upstream(
      server,
      ANTHROPIC,
      anthropicWire,
      () => errorResponse(anthropicWire, 529),
    );
    const error = await streamChat(chain({
      maxRetries: 1,
      fallbacks: [{
        baseURL: ANTHROPIC,
        protocol: "anthropic-messages",
        maxRetries: 3,
        body: { model: "claude-sonnet-4-5" },
      }],
    })).result.catch((e: unknown) => e);
    expect(isAPIStatusError(error) && [error.status, error.attempts]).toEqual([529, 6]);
    expect(first.count).toBe(2);
    expect(second.count).toBe(4);
  });

  test("a non-retryable error (401) does not fall back", async () => {
    const first = upstream(server, PRIMARY, chatWire, () => errorResponse(chatWire, 401));
    const second = upstream(server, ANTHROPIC, anthropicWire, answers(anthropicWire, "never"));
    const error = await streamChat(chain()).result.catch((e: unknown) => e);
    expect(isAPIStatusError(error) && error.status).toBe(401);
    expect(first.count).toBe(1);
    expect(second.count).toBe(0);
  });

  test("a Retry-After longer than allowed moves on to the next target", async () => {
    const first = upstream(
      server,
      PRIMARY,
      chatWire,
      () => errorResponse(chatWire, 429, { "retry-after": "3600" }),
    );
    const second = upstream(server, ANTHROPIC, anthropicWire, answers(anthropicWire, "ok"));
    const result = await streamChat(chain()).result;
    expect(result.target?.index).toBe(1);
    expect(first.count).toBe(1);
    expect(second.count).toBe(1);
  });

  test("an interrupt during the first target's backoff makes no request to the second", async () => {
    const controller = new AbortController();
    const first = upstream(server, PRIMARY, chatWire, () => errorResponse(chatWire, 503));
    const second = upstream(server, ANTHROPIC, anthropicWire, answers(anthropicWire, "never"));
    const run = await collect(
      streamChat(chain({ signal: controller.signal, retry: { initialDelayMs: 10_000 } })),
      (e) => {
        if (e.type === "retry") controller.abort();
      },
    );
    expect(isInterruptedError(run.error)).toBe(true);
    await jumpPastEveryWait(); // not even once the 10 s backoff is over
    expect(run.events.some((e) => e.type === "fallback")).toBe(false);
    expect(first.count).toBe(1);
    expect(second.count).toBe(0);
  });

  test("content on the first target means no fallback, whatever happens next", async () => {
    const first = upstream(
      server,
      PRIMARY,
      chatWire,
      (_n, req) => sseResponse(req, [...chatWire.start(), chatWire.text("half")], "drop"),
    );
    const second = upstream(server, ANTHROPIC, anthropicWire, answers(anthropicWire, "never"));
    const run = await collect(streamChat(chain()));
    expect(isPartialStreamError(run.error)).toBe(true);
    if (isPartialStreamError(run.error)) {
      expect(run.error.partial.content).toBe("half");
      expect(run.error.partial.target?.index).toBe(0);
    }
    expect(run.events.some((e) => e.type === "fallback")).toBe(false);
    expect(first.count).toBe(1);
    expect(second.count).toBe(0);
  });

  test("three protocols in one chain: chat → anthropic → responses", async () => {
    const a = upstream(server, PRIMARY, chatWire, () => errorResponse(chatWire, 500));
    const b = upstream(server, ANTHROPIC, anthropicWire, () => errorResponse(anthropicWire, 529));
    const c = upstream(
      server,
      "https://responses.test/v1",
      responsesWire,
      answers(responsesWire, "third time"),
    );
    const run = await collect(streamChat(chain({
      maxRetries: 0,
      fallbacks: [
        { baseURL: ANTHROPIC, protocol: "anthropic-messages", body: { model: "claude" } },
        {
          baseURL: "https://responses.test/v1",
          protocol: "openai-responses",
          body: { model: "gpt-5" },
        },
      ],
    })));
    expect(run.result).toMatchObject({ content: "third time", attempts: 3 });
    expect(run.result?.target).toMatchObject({
      index: 2,
      protocol: "openai-responses",
      model: "gpt-5",
    });
    expect(
      run.events.filter((e) => e.type === "fallback").map((e) => e.type === "fallback" && e.index),
    )
      .toEqual([1, 2]);
    expect([a.count, b.count, c.count]).toEqual([1, 1, 1]);
  });

  test("the fallback runs under the same totalMs", async () => {
    const first = upstream(server, PRIMARY, chatWire, () => errorResponse(chatWire, 503));
    const second = upstream(
      server,
      ANTHROPIC,
      anthropicWire,
      (_n, req) => sseResponse(req, anthropicWire.start(), "hang"),
    );
    const started = Date.now();
    const error = await streamChat(chain({ maxRetries: 0, timeouts: { totalMs: 500 } })).result
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe("TimeoutError");
    expect((error as { phase?: string }).phase).toBe("total");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(first.count).toBe(1);
    expect(second.count).toBe(1);
  });

  test("no fallback once totalMs is over: the primary's wait used it up", async () => {
    const first = upstream(server, PRIMARY, chatWire, async (_n, req) => {
      // Headers never come (MSW's own abort: the request's signal).
      await new Promise((resolve) => req.signal.addEventListener("abort", resolve));
      return errorResponse(chatWire, 503);
    });
    const second = upstream(server, ANTHROPIC, anthropicWire, () => errorResponse(chatWire, 503));
    const run = await collect(streamChat(chain({ maxRetries: 0, timeouts: { totalMs: 150 } })));
    expect(run.error).toMatchObject({ name: "TimeoutError", phase: "total" });
    // The call rejects at once, whatever its loop does next; a request that should not come has
    // no event to await, so the clock jumps past every wait the loop could (wrongly) take.
    await jumpPastEveryWait();
    expect(run.events.some((e) => e.type === "fallback")).toBe(false);
    expect(first.count).toBe(1);
    expect(second.count).toBe(0);
  });
});
