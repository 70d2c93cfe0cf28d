/**
 * The relay's call options: checked once by `createRelay` (not by every request), and carried
 * intact to a resumable stream's Durable Object, `Infinity` (no limit) included.
 */

import { describe, expect, test } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import { decodePlan, encodePlan, type StartPlan } from "../../src/relay/streams/wire.ts";

function planWith(call: Partial<StartPlan["call"]>): StartPlan {
  return {
    id: "0".repeat(32),
    owner: "",
    call: {
      baseURL: "https://api.example.com/v1",
      // A caller's null stays null: only the limits' nulls mean "no limit".
      body: { model: "m", messages: [{ role: "user", content: "hi" }], seed: null },
      ...call,
    },
    upstreams: [0],
    demo: undefined,
    chat: { id: "chatcmpl-1", model: "m", includeUsage: false },
    keepAliveMs: 15_000,
    ttlMs: 600_000,
    maxBytes: 8 << 20,
  };
}

describe("the start plan of a resumable stream", () => {
  test("limits of Infinity arrive as Infinity, in the call and in each fallback", () => {
    const plan = planWith({
      timeouts: { idleMs: Infinity, headersMs: 5_000, totalMs: Infinity },
      retry: { maxRetryAfterMs: Infinity, initialDelayMs: 0 },
      maxRetries: 1,
      fallbacks: [{
        baseURL: "https://other.example.com/v1",
        timeouts: { firstEventMs: Infinity },
      }],
    });
    const text = encodePlan(plan);
    // What JSON.stringify alone sends: null, which streamChat refuses.
    expect(JSON.parse(JSON.stringify(plan)).call.timeouts.idleMs).toBeNull();
    expect(decodePlan(text)).toEqual(plan);
  });

  test("a non-finite limit other than Infinity is refused, not sent as no limit", () => {
    for (const value of [Number.NaN, -Infinity]) {
      expect(() => encodePlan(planWith({ timeouts: { idleMs: value } }))).toThrow(
        `timeouts.idleMs cannot be ${value}`,
      );
    }
  });
});

describe("createRelay checks the call options once", () => {
  test.each([
    [
      "timeouts.idleMs NaN",
      { timeouts: { idleMs: Number.NaN } },
      RangeError,
      "`timeouts.idleMs` must be a number ≥ 1",
    ],
    [
      "timeouts.totalMs 0",
      { timeouts: { totalMs: 0 } },
      RangeError,
      "`timeouts.totalMs` must be a number ≥ 1",
    ],
    [
      "retry.maxDelayMs -1",
      { retry: { maxDelayMs: -1 } },
      RangeError,
      "`retry.maxDelayMs` must be a number ≥ 0",
    ],
    ["maxRetries 1.5", { maxRetries: 1.5 }, RangeError, "`maxRetries` must be an integer ≥ 0"],
    [
      "timeouts.idleMS",
      { timeouts: { idleMS: 1 } },
      TypeError,
      "`timeouts.idleMS` is not a streamChat option; did you",
    ],
  ])("%s is refused at once", (_, options, type, message) => {
    expect(() => createRelay(options as never)).toThrow(type);
    expect(() => createRelay(options as never)).toThrow(`createRelay: ${message}`);
  });

  test("limits of Infinity are accepted", () => {
    expect(() =>
      createRelay({
        timeouts: { idleMs: Infinity, totalMs: Infinity },
        retry: { maxRetryAfterMs: Infinity },
      })
    ).not.toThrow();
  });
});
