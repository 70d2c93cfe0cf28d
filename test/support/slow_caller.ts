/**
 * A relay in front of an upstream that makes its body only as fast as the relay pulls it, and
 * the reads of a caller of that relay: what the slow-caller tests share
 * (test/unit/relay_slow_caller.test.ts on Node, test/workers/slow_caller.test.ts in workerd).
 *
 * @module
 */

import { expect } from "vitest";
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
