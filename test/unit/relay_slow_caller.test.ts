/**
 * The relay's streaming answer with a caller who reads slowly or not at all
 * (src/relay/sse_response.ts): the upstream is held back, not buffered; keep-alives do not queue
 * behind what the caller has not read; a caller who takes nothing for four keep-alive intervals
 * has its answer stopped and the upstream cancelled, while one that reads slowly but steadily
 * gets all of it, and the client's idle timer never blames the upstream for a slow caller.
 */

import { describe, expect, it } from "vitest";
import {
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
