/**
 * A resumable stream's call runs in its Durable Object, out of the isolate's retry budget: the
 * Worker lends it the retries it may make, and it gives back those it did not need at its start
 * response (issue #29, item 3). Outage figures under `npm start`: test/e2e/caller_fairness.test.ts.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { createRetryBudget } from "../../src/core/retry_budget.ts";
import { eventsOf, faultStats, startResumable, streamsRelay } from "./stream_helpers.ts";

afterEach(() => {
  vi.useRealTimers();
});

describe("resumable streams draw on the retry budget", () => {
  it("an answered stream gives back every retry it was lent: healthy traffic spends none", async () => {
    // Date.now() faked (timers stay real): the budget's floor cannot refill while the test runs.
    vi.useFakeTimers({ toFake: ["Date"] });
    const retryBudget = createRetryBudget({ ratio: 0, minPerSecond: 4 });
    const { app } = streamsRelay("", { retryBudget, maxRetries: 2 });
    for (let i = 0; i < 5; i++) {
      const response = await startResumable(app);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-stopstream-retries-returned")).toBeNull(); // isolate only
      expect(eventsOf(await response.text()).at(-1)?.data).toBe("[DONE]");
      expect(retryBudget.balance).toBe(4);
    }
  });

  it("with the budget empty, the stream's 503 is not retried: one upstream request", async () => {
    const retryBudget = createRetryBudget({ ratio: 0, minPerSecond: 0 });
    const { app, testId } = streamsRelay("status=503", { retryBudget, maxRetries: 2 });
    const response = await startResumable(app);
    expect(response.status).toBe(502); // the upstream's failure, before any stream id
    expect(response.headers.get("x-stopstream-attempts")).toBe("1");
    await response.text();
    expect((await faultStats(testId)).requests).toBe(1);
  });

  it("with retries in the budget, the stream takes them, and the budget is the poorer", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const retryBudget = createRetryBudget({ ratio: 0, minPerSecond: 3 });
    const { app, testId } = streamsRelay("attempt1=status:503", { retryBudget, maxRetries: 2 });
    const response = await startResumable(app);
    expect(response.status).toBe(200);
    expect(eventsOf(await response.text()).at(-1)?.data).toBe("[DONE]");
    expect((await faultStats(testId)).requests).toBe(2);
    expect(retryBudget.balance).toBe(2); // one spent, one lent and given back
  });
});
