/**
 * The relay's answer to a caller who stops reading, in workerd (the stream and queue of the
 * runtime the relay is deployed on): held back, no keep-alives queued behind what it has not
 * read, stopped with a `caller_stalled` error event after four keep-alive intervals, the
 * upstream cancelled. The same on Node: test/unit/relay_slow_caller.test.ts.
 */

import { describe, it } from "vitest";
import { expectStalledCallerStopped } from "../support/slow_caller.ts";

describe("relay in workerd: a caller who stops reading", () => {
  it("holds the upstream back, then stops the answer after four keep-alive intervals", async () => {
    await expectStalledCallerStopped();
  });
});
