/**
 * The relay's answer to a caller who stops reading, in workerd (the stream and queue of the
 * runtime the relay is deployed on): held back, no keep-alives queued behind what it has not
 * read, stopped with a `caller_stalled` error event after four keep-alive intervals, the
 * upstream cancelled. The same on Node: test/unit/relay_slow_caller.test.ts.
 */

import { describe, expect, it } from "vitest";
import { readAll, relay, request, untilContent, upstream } from "../support/slow_caller.ts";
import { delay, DONE } from "../support/sse.ts";

describe("relay in workerd: a caller who stops reading", () => {
  it("holds the upstream back, then stops the answer after four keep-alive intervals", async () => {
    const up = upstream(4000);
    const app = relay(up, { keepAliveMs: 20 });
    const { reader } = await untilContent(await app.fetch(request()));
    const outcome = await Promise.race([
      up.aborted.then(() => "upstream cancelled"),
      delay(2_000).then(() => "upstream still held after 100 intervals"),
    ]);
    expect(outcome).toBe("upstream cancelled");
    expect(up.pulled()).toBeLessThan(256 * 1024);
    const rest = await readAll(reader);
    expect(rest.split(": keep-alive").length - 1).toBeLessThanOrEqual(1);
    expect(rest).toContain('"code":"caller_stalled"');
    expect(rest).not.toContain(DONE);
  });
});
