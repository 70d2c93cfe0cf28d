/**
 * The relay's streaming answer with a caller who reads slowly or not at all
 * (src/relay/sse_response.ts): the upstream is held back, not buffered; keep-alives do not queue
 * behind what the caller has not read; a caller who takes nothing for four keep-alive intervals
 * has its answer stopped and the upstream cancelled, while one that reads slowly but steadily
 * gets all of it, and the client's idle timer never blames the upstream for a slow caller.
 */

import { describe, expect, it } from "vitest";
import {
  EVENT,
  expectStalledCallerStopped,
  PIECE,
  readAll,
  relay,
  request,
  untilContent,
  upstream,
} from "../support/slow_caller.ts";
import { delay, DONE } from "../support/sse.ts";

const decoder = new TextDecoder();

describe("relay: a caller who stops reading", () => {
  it("holds the upstream back, then stops the answer after four keep-alive intervals", async () => {
    await expectStalledCallerStopped();
  });

  it("gives a slow but steady reader the whole answer", async () => {
    const up = upstream(64); // 1 MiB, read one write per keep-alive interval: 1 s or more
    const app = relay(up, { keepAliveMs: 20 });
    const { reader } = await untilContent(await app.fetch(request()));
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      await delay(20); // the slow reader under test
    }
    expect(text).not.toContain('"error"');
    expect(text.endsWith(DONE)).toBe(true);
    expect(up.pulled()).toBe(64 * PIECE.length);
  });

  it("gives a steady reader of small writes the whole answer, though a big piece keeps the queue full", async () => {
    // Single events, with a 64 KiB piece every 100: after one, the queue stays above the mark
    // for the many small reads it takes to get below it, with no pull. Those reads count (they
    // did not: `caller_stalled` after 199 reads, review).
    const one = new TextEncoder().encode(EVENT);
    const big = new Uint8Array(PIECE.length * 4);
    for (let i = 0; i < 4; i++) big.set(PIECE, i * PIECE.length);
    const up = upstream(298, (n) => (n % 100 === 0 ? big : one));
    const app = relay(up, { keepAliveMs: 20 });
    const { reader } = await untilContent(await app.fetch(request()));
    let text = "";
    for (;;) {
      await delay(5); // the slow reader under test: four writes per keep-alive interval
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).not.toContain("caller_stalled");
    expect(text.endsWith(DONE)).toBe(true);
  });

  it("a caller busy for longer than idleMs is no stall of the upstream's", async () => {
    const up = upstream(200);
    const app = relay(up, { timeouts: { idleMs: 50 }, keepAliveMs: 10_000 });
    const { reader } = await untilContent(await app.fetch(request()));
    await delay(300); // the caller is busy elsewhere for 6 × idleMs
    const rest = await readAll(reader);
    expect(rest).not.toContain('"error"');
    expect(rest.endsWith(DONE)).toBe(true);
  });
});
