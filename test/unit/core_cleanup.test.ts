import { describe, expect, test } from "vitest";
import { streamChat } from "../../src/client/stream_chat.ts";
import { networkError, noAnswer, useMockUpstream } from "../support/msw.ts";
import { chunk, collect, openAIText, sse, trackListeners } from "../support/sse.ts";
import { options, rejection } from "../support/chat.ts";

const upstream = useMockUpstream();

describe("clean-up on every path", () => {
  /** Counts live timers made through the global setTimeout while `body` runs. */
  async function withTimerCount(body: (live: () => number) => Promise<void>): Promise<void> {
    const live = new Set<unknown>();
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    globalThis.setTimeout =
      ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
        const id = realSet(() => {
          live.delete(id);
          fn(...args);
        }, ms);
        live.add(id);
        return id;
      }) as typeof setTimeout;
    globalThis.clearTimeout = ((id: Parameters<typeof clearTimeout>[0]) => {
      live.delete(id);
      realClear(id);
    }) as typeof clearTimeout;
    try {
      await body(() => live.size);
    } finally {
      globalThis.setTimeout = realSet;
      globalThis.clearTimeout = realClear;
    }
  }

  /** Lets the call's own `finally` blocks run after its result settled (no timer involved). */
  const flush = () => new Promise((resolve) => setImmediate(resolve));

  /** An injected fetch serving `bodies` in turn (strings, or a never-ending body). */
  function serve(bodies: Array<string | "hold" | "fail" | 503>) {
    let calls = 0;
    const fetchFn: typeof fetch = (_url, init) => {
      const next = bodies[Math.min(calls++, bodies.length - 1)]!;
      if (next === "fail") return Promise.reject(new TypeError("fetch failed"));
      if (next === 503) return Promise.resolve(new Response("busy", { status: 503 }));
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          if (next !== "hold") {
            controller.enqueue(new TextEncoder().encode(next));
            controller.close();
            return;
          }
          controller.enqueue(new TextEncoder().encode(sse(chunk({ content: "a" }))));
          init?.signal?.addEventListener("abort", () => controller.error(init.signal!.reason));
        },
      });
      return Promise.resolve(
        new Response(stream, { headers: { "content-type": "text/event-stream" } }),
      );
    };
    return { fetchFn, calls: () => calls };
  }

  test("no timer outlives a call: success, failure, retries, aborts, total timeout, break", async () => {
    await withTimerCount(async (live) => {
      const ok = serve([openAIText(["ok"])]);
      await streamChat(options({ fetch: ok.fetchFn, timeouts: { totalMs: 60_000 } })).result;
      await flush();
      expect(live()).toBe(0);
      expect(ok.calls()).toBe(1);

      const failing = serve(["fail", 503, "fail"]);
      await rejection(streamChat(options({ fetch: failing.fetchFn })).result);
      await flush();
      expect(live()).toBe(0);
      expect(failing.calls()).toBe(3);

      const controller = new AbortController();
      const held = serve(["hold"]);
      await collect(
        streamChat(options({ fetch: held.fetchFn, signal: controller.signal })),
        (event) => event.type === "text" && controller.abort(),
      );
      await flush();
      expect(live()).toBe(0);
      expect(held.calls()).toBe(1);

      const backoff = new AbortController();
      const sleeping = serve(["fail"]);
      await collect(
        streamChat(options({
          fetch: sleeping.fetchFn,
          signal: backoff.signal,
          retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
        })),
        (event) => event.type === "retry" && backoff.abort(),
      );
      await flush();
      expect(live()).toBe(0);
      expect(sleeping.calls()).toBe(1);

      const total = serve(["hold"]);
      await rejection(
        streamChat(options({ fetch: total.fetchFn, timeouts: { totalMs: 5 } })).result,
      );
      await flush();
      expect(live()).toBe(0);
      expect(total.calls()).toBe(1);

      const broken = serve(["hold"]);
      for await (const event of streamChat(options({ fetch: broken.fetchFn }))) {
        if (event.type === "text") break;
      }
      await flush();
      expect(live()).toBe(0);
      expect(broken.calls()).toBe(1);
    });
    expect(upstream.count).toBe(0);
  });

  test("a shared signal keeps no listener after total timeouts and exhausted retries either", async () => {
    const signal = new AbortController().signal;
    const live = trackListeners(signal);
    upstream.reply(noAnswer);
    await rejection(streamChat(options({ signal, timeouts: { totalMs: 5 } })).result);
    upstream.reply(networkError);
    await rejection(streamChat(options({ signal })).result);
    expect(live()).toBe(0);
    expect(upstream.count).toBe(4);
  });
});
