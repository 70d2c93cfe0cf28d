/**
 * Code loaded on first use (src/lazy.ts): once loaded it is there at once, a failed load is a
 * typed error with its cause and is tried again, and a stop ends the wait for a load at once.
 * The real import() in each runtime: test/conformance/lazy_protocols.ts; a chunk that fails to
 * download in a browser: test/browser/conformance.test.ts.
 */

import { describe, expect, test, vi } from "vitest";
import { CallControl } from "../../src/client/call_control.ts";
import { ChatStream } from "../../src/client/chat_stream.ts";
import { InterruptedError } from "../../src/core/error_classes.ts";
import { isConnectionError, isInterruptedError } from "../../src/core/error_guards.ts";
import { lazy } from "../../src/client/lazy.ts";
import { anthropicMessages } from "../../src/protocols/anthropic_messages.ts";
import type { Protocol } from "../../src/protocols/protocol.ts";
import { planCall } from "../../src/client/stream_chat.ts";

describe("lazy", () => {
  test("loads once; once loaded the value itself is returned, not a promise", async () => {
    let loads = 0;
    const load = lazy("the thing", () => Promise.resolve(++loads));
    const control = new CallControl();
    const [a, b] = await Promise.all([load(control), load(control)]);
    expect([a, b, loads]).toEqual([1, 1, 1]);
    expect(load(control)).toBe(1);
    expect(control.current).toBeUndefined();
  });

  test("a failed load is a ConnectionError with the failure as cause, and the next call loads again", async () => {
    let loads = 0;
    const failure = new TypeError("Failed to fetch dynamically imported module");
    const load = lazy(
      "the thing",
      () => ++loads === 1 ? Promise.reject(failure) : Promise.resolve(loads),
    );
    const error = await Promise.resolve(load(new CallControl())).catch((e: unknown) => e);
    expect(isConnectionError(error)).toBe(true);
    expect((error as Error).cause).toBe(failure);
    expect((error as Error).message).toContain("the thing could not be loaded");
    expect(await load(new CallControl())).toBe(2);
  });

  test("a wait longer than limitMs is a ConnectionError; the load goes on, and the next call gets it", async () => {
    vi.useFakeTimers();
    try {
      let finish!: (value: number) => void;
      let loads = 0;
      const load = lazy("the thing", () => {
        loads++;
        return new Promise<number>((resolve) => (finish = resolve));
      });
      const control = new CallControl();
      let settled = false;
      const waiting = Promise.resolve(load(control, 1_000)).catch((e: unknown) => e)
        .finally(() => (settled = true));
      await vi.advanceTimersByTimeAsync(999); // runs every promise job that is due, too
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const error = await waiting;
      expect(isConnectionError(error)).toBe(true);
      expect((error as Error).message).toContain("the thing did not load within 1000 ms");
      expect(control.current).toBeUndefined();
      finish(7);
      expect(await load(new CallControl(), 1_000)).toBe(7);
      expect(loads).toBe(1);
      expect(vi.getTimerCount()).toBe(0); // the timers of settled waits are cleared
    } finally {
      vi.useRealTimers();
    }
  });

  test("a stop ends the wait for a load at once, with the stop error", async () => {
    const load = lazy("the thing", () => new Promise<never>(() => {}));
    const control = new CallControl();
    const waiting = Promise.resolve(load(control));
    const stop = new InterruptedError("stop");
    control.stop(stop);
    await expect(waiting).rejects.toBe(stop);
    await expect(Promise.resolve(load(control))).rejects.toBe(stop); // stopped: no new wait
  });
});

describe("a call whose protocol loads on first use", () => {
  function callWith(load: () => Promise<Protocol>, signal?: AbortSignal, headersMs?: number) {
    let requests = 0;
    const plan = planCall({
      baseURL: "https://provider.invalid/v1",
      protocol: "anthropic-messages",
      body: { model: "m", messages: [] },
      fetch: () => {
        requests++;
        return Promise.reject(new Error("no request may be sent"));
      },
      maxRetries: 1,
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
      ...(signal === undefined ? {} : { signal }),
      ...(headersMs === undefined ? {} : { timeouts: { headersMs } }),
    });
    plan.targets[0]!.protocol = { ...anthropicMessages, load: lazy("the decoder", load) };
    return { stream: new ChatStream(plan), requests: () => requests };
  }

  test("a load that fails is retried like a connection, then rejects typed; nothing is sent", async () => {
    let loads = 0;
    const failure = new TypeError("Failed to fetch dynamically imported module");
    const { stream, requests } = callWith(() => {
      loads++;
      return Promise.reject(failure);
    });
    const error = await stream.result.catch((e: unknown) => e);
    expect(isConnectionError(error)).toBe(true);
    expect((error as Error).cause).toBe(failure);
    expect([(error as { attempts?: number }).attempts, loads, requests()]).toEqual([2, 2, 0]);
  });

  test("a decoder load that hangs fails each attempt after headersMs, then rejects typed; nothing is sent", async () => {
    let loads = 0;
    const { stream, requests } = callWith(
      () => {
        loads++;
        return new Promise<never>(() => {});
      },
      undefined,
      20,
    );
    const error = await stream.result.catch((e: unknown) => e);
    expect(isConnectionError(error)).toBe(true);
    expect((error as Error).message).toContain("did not load within 20 ms");
    expect([(error as { attempts?: number }).attempts, loads, requests()]).toEqual([2, 1, 0]);
  });

  test("a headersMs past the timer's range (2^31 - 1 ms) is no limit: a load that takes a while is waited for", async () => {
    // Found in review: such a limit armed a timer that fired at once, failing every attempt.
    // The load stands for a chunk that arrives a few milliseconds later (the wait is the
    // network's, not synchronisation).
    const { stream, requests } = callWith(
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return await anthropicMessages.load(new CallControl());
      },
      undefined,
      3_000_000_000,
    );
    const error = await stream.result.catch((e: unknown) => e);
    expect((error as Error).message).toContain("the request could not be sent");
    expect(requests()).toBe(2);
  });

  test("abort while the decoder loads rejects at once with InterruptedError; nothing is sent", async () => {
    let started!: () => void;
    const loading = new Promise<void>((resolve) => (started = resolve));
    const controller = new AbortController();
    const { stream, requests } = callWith(() => {
      started();
      return new Promise<never>(() => {});
    }, controller.signal);
    const result = stream.result.catch((e: unknown) => e);
    await loading;
    controller.abort();
    const error = await result;
    expect(isInterruptedError(error)).toBe(true);
    expect(requests()).toBe(0);
  });
});
