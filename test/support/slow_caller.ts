/**
 * The relay's streaming answer to a caller who reads slowly or not at all, as one table of
 * cases ({@link SLOW_CALLER_CASES}) that both runtimes run (test/unit/relay_slow_caller.test.ts
 * on Node, test/workers/slow_caller.test.ts in workerd): a relay in front of an upstream that
 * makes its body only as fast as the relay pulls it, and the reads of a caller of that relay.
 *
 * @module
 */

import { describe, expect, test } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import type { RelayOptions } from "../../src/relay/options.ts";
import { chunk, delay, DONE, sse } from "./sse.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** One content event (about 200 bytes). */
export const EVENT = sse(chunk({ content: "x".repeat(100) }));
/** One 16 KiB piece of content events. */
export const PIECE = encoder.encode(EVENT.repeat(Math.floor(16_384 / EVENT.length)));

export interface Upstream {
  fetch: typeof fetch;
  /** Bytes of content the relay has pulled from the upstream body so far. */
  pulled(): number;
  /** Resolves when the relay aborts the upstream request. */
  aborted: Promise<void>;
}

/**
 * An upstream that answers `pieces` pieces (each {@linkcode PIECE}, or what `pieceOf` gives for
 * the n-th, from 1), each made only when the relay pulls.
 */
export function upstream(
  pieces: number,
  pieceOf: (n: number) => Uint8Array = () => PIECE,
): Upstream {
  let pulled = 0;
  let onAbort!: () => void;
  const aborted = new Promise<void>((resolve) => (onAbort = resolve));
  const fetch: typeof globalThis.fetch = (input, init) => {
    const signal = new Request(input, init).signal;
    signal.addEventListener("abort", onAbort, { once: true });
    let sent = 0;
    const body = new ReadableStream({
      type: "bytes",
      pull(controller: ReadableByteStreamController) {
        if (sent++ === 0) {
          controller.enqueue(encoder.encode(sse(chunk({ role: "assistant", content: "" }))));
        } else if (sent <= pieces + 1) {
          const piece = pieceOf(sent - 1);
          pulled += piece.length;
          controller.enqueue(piece.slice());
        } else {
          controller.enqueue(encoder.encode(sse(chunk({}, "stop")) + DONE));
          controller.close();
          controller.byobRequest?.respond(0);
        }
      },
    });
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  };
  return { fetch, pulled: () => pulled, aborted };
}

/** The relay (no retries) in front of `up`. */
export function relay(up: Upstream, options: RelayOptions): ReturnType<typeof createRelay> {
  return createRelay({
    upstreams: [{ baseURL: "https://up.test/v1", apiKey: "sk-up-0123456789abcdef" }],
    fetch: up.fetch,
    maxRetries: 0,
    ...options,
  });
}

/** A streaming chat request to the relay. */
export const request = (): Request =>
  new Request("http://relay.test/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "Hi" }] }),
  });

/** Reads until content flows; returns the reader and what it read. */
export async function untilContent(
  response: Response,
): Promise<{ reader: ReadableStreamDefaultReader<Uint8Array>; text: string }> {
  const reader = response.body!.getReader();
  let text = "";
  while (!text.includes("xxxx")) text += decoder.decode((await reader.read()).value);
  return { reader, text };
}

/** Everything left to read. */
export async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * The stalled-caller check both runtimes run: a caller who reads nothing after the first
 * content has the upstream held back, then cancelled after four keep-alive intervals, and finds
 * a `caller_stalled` error event (no `[DONE]`, no keep-alives queued) when it reads again.
 *
 * @example
 * ```ts
 * it("stops a stalled caller's answer", () => expectStalledCallerStopped());
 * ```
 */
export async function expectStalledCallerStopped(): Promise<void> {
  const up = upstream(4000); // 64 MiB, if anyone read it
  const app = relay(up, { keepAliveMs: 20 });
  const { reader } = await untilContent(await app.fetch(request()));
  // The caller reads nothing more: after 4 × 20 ms with its write-ahead unread, the relay
  // gives up on it and cancels the upstream (before: held for as long as it stayed connected).
  const outcome = await Promise.race([
    up.aborted.then(() => "upstream cancelled"),
    delay(2_000).then(() => "upstream still held after 100 intervals"),
  ]);
  expect(outcome).toBe("upstream cancelled");
  // Held back meanwhile: the 64 KiB write-ahead and about a piece, not the upstream's 64 MiB.
  expect(up.pulled()).toBeLessThan(256 * 1024);
  const rest = await readAll(reader);
  // What waited for it: the 64 KiB mark plus at most one upstream read, and the error event.
  expect(rest.length).toBeLessThan(128 * 1024 + 1024);
  // Comments did not pile up behind what it had not read (one per interval did, before).
  expect(rest.split(": keep-alive").length - 1).toBeLessThanOrEqual(1);
  expect(rest).toContain('"code":"caller_stalled"');
  expect(rest).not.toContain(DONE);
}

/** One slow-caller case: its name, and the check. */
export interface SlowCallerCase {
  name: string;
  check(): Promise<void>;
  /** Why the case does not run in workerd, if it does not. */
  notInWorkerd?: string;
}

// workerd's pipe shows the relay a write taken only when the caller's reads get through it, and a
// caller in the same isolate reads 4 KiB at a time: a 16 KiB write is taken every fourth read, a
// 64 KiB one every sixteenth. At these cases' 20 ms keep-alive interval, a steady caller slower
// than a write per four intervals (80 ms) looks stalled there; at the default 15 s, per minute.
const WORKERD_TAKES_WHOLE_WRITES =
  "workerd shows a write taken only once 4 KiB reads get through it: at this pace, every 80 ms, the stall limit";

/** A steady reader of the whole answer: after every read, `pause` (the slow reader under test). */
async function readSteadily(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pause: () => Promise<void>,
  pauseFirst = false,
): Promise<string> {
  let text = "";
  for (;;) {
    if (pauseFirst) await pause();
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value, { stream: true });
    if (!pauseFirst) await pause();
  }
}

/**
 * Every slow-caller case: the upstream held back, not buffered; keep-alives not queued behind
 * what the caller has not read; a caller who takes nothing for four keep-alive intervals
 * stopped and the upstream cancelled, while one that reads slowly but steadily gets all of it;
 * and the client's idle timer never blames the upstream for a slow caller.
 *
 * @example
 * ```ts
 * describe("a caller who stops reading", () => {
 *   test.each(SLOW_CALLER_CASES)("$name", ({ check }) => check());
 * });
 * ```
 */
export const SLOW_CALLER_CASES: readonly SlowCallerCase[] = [
  {
    name: "holds the upstream back, then stops the answer after four keep-alive intervals",
    check: expectStalledCallerStopped,
  },
  {
    name: "gives a slow but steady reader the whole answer",
    async check() {
      const up = upstream(64); // 1 MiB, read one write per keep-alive interval: 1 s or more
      const app = relay(up, { keepAliveMs: 20 });
      const { reader } = await untilContent(await app.fetch(request()));
      const text = await readSteadily(reader, () => delay(20));
      expect(text).not.toContain('"error"');
      expect(text.endsWith(DONE)).toBe(true);
      expect(up.pulled()).toBe(64 * PIECE.length);
    },
    notInWorkerd: WORKERD_TAKES_WHOLE_WRITES,
  },
  {
    name:
      "gives a steady reader of small writes the whole answer, though a big piece keeps the queue full",
    async check() {
      // Single events, with a 64 KiB piece every 100: after one, the queue stays above the mark
      // for the many small reads it takes to get below it, with no pull. Those reads count (they
      // did not: `caller_stalled` after 199 reads, review).
      const one = encoder.encode(EVENT);
      const big = new Uint8Array(PIECE.length * 4);
      for (let i = 0; i < 4; i++) big.set(PIECE, i * PIECE.length);
      const up = upstream(298, (n) => (n % 100 === 0 ? big : one));
      const app = relay(up, { keepAliveMs: 20 });
      const { reader } = await untilContent(await app.fetch(request()));
      // Four writes per keep-alive interval.
      const text = await readSteadily(reader, () => delay(5), true);
      expect(text).not.toContain("caller_stalled");
      expect(text.endsWith(DONE)).toBe(true);
    },
    notInWorkerd: WORKERD_TAKES_WHOLE_WRITES,
  },
  {
    name: "a caller busy for longer than idleMs is no stall of the upstream's",
    async check() {
      const up = upstream(200);
      const app = relay(up, { timeouts: { idleMs: 50 }, keepAliveMs: 10_000 });
      const { reader } = await untilContent(await app.fetch(request()));
      await delay(300); // the caller is busy elsewhere for 6 × idleMs
      const rest = await readAll(reader);
      expect(rest).not.toContain('"error"');
      expect(rest.endsWith(DONE)).toBe(true);
    },
  },
];

/**
 * The slow-caller cases, one test each; in workerd a case that cannot run there is listed as
 * skipped, with the reason.
 *
 * @example
 * ```ts
 * describeSlowCaller("relay: a caller who stops reading", "node");
 * ```
 */
export function describeSlowCaller(title: string, runtime: "node" | "workerd"): void {
  describe(title, () => {
    for (const { name, check, notInWorkerd } of SLOW_CALLER_CASES) {
      if (runtime === "workerd" && notInWorkerd !== undefined) {
        test.skip(`${name} (not in workerd: ${notInWorkerd})`, check);
      } else {
        test(name, check);
      }
    }
  });
}
