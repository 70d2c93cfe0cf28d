import { describe, expect, test, vi } from "vitest";
import { createRetryBudget } from "../../src/core/retry_budget.ts";
import { identify } from "../../src/relay/caller.ts";
import { CallerBudgets, giveBack, lend } from "../../src/relay/caller_budget.ts";
import { parseReturned, RetryAllowance } from "../../src/relay/streams/retry_allowance.ts";
import { fakeDateFrom } from "../support/fake_date.ts";

// The retry budget per caller and as a whole (issue #29, item 3), on a faked `Date.now()`.
// Black box under `npm start`: test/e2e/caller_fairness.test.ts.

const T0 = Date.UTC(2025, 0, 1);

fakeDateFrom(T0);

/** `calls` calls of one caller that only fail: each tries to retry twice. */
function failing(budgets: CallerBudgets, caller: string, calls: number): number {
  let retries = 0;
  for (let i = 0; i < calls; i++) {
    const budget = budgets.of(caller);
    budget.deposit();
    for (let retry = 0; retry < 2 && budget.tryWithdraw(); retry++) retries++;
  }
  return retries;
}

describe("CallerBudgets", () => {
  test("a caller whose calls only fail gets a fifth of them in retries, however long it goes on", () => {
    const budgets = new CallerBudgets(createRetryBudget({ minPerSecond: 1_000 }));
    let retries = failing(budgets, "key:a", 100);
    // The reserve of 5, then a fifth of its calls.
    expect(retries).toBeLessThanOrEqual(5 + 0.2 * 100);
    for (let second = 0; second < 20; second++) {
      vi.advanceTimersByTime(1_000);
      retries += failing(budgets, "key:a", 10);
    }
    // Time refills the whole's floor, never the caller's share.
    expect(retries).toBeLessThanOrEqual(5 + 0.2 * 300);
  });

  test("another caller's retry is still granted while one drains its share", () => {
    const budgets = new CallerBudgets(createRetryBudget());
    failing(budgets, "key:attacker", 500);
    let retried = 0;
    for (let i = 0; i < 12; i++) {
      const budget = budgets.of("key:victim");
      budget.deposit();
      if (budget.tryWithdraw()) retried++;
      budget.answered(); // the retry succeeded
      vi.advanceTimersByTime(200);
    }
    expect(retried).toBe(12);
  });

  test("every share together stays within the whole budget", () => {
    const whole = createRetryBudget({ ratio: 0.2, minPerSecond: 10 });
    const budgets = new CallerBudgets(whole);
    let retries = 0;
    for (let caller = 0; caller < 50; caller++) retries += failing(budgets, `key:${caller}`, 4);
    // 50 callers' reserves would allow 250; the whole allows 0.2 × 200 + its floor of 10.
    expect(retries).toBeLessThanOrEqual(0.2 * 200 + 10);
  });

  test("an answered call refills its caller's reserve, one retry at a time up to 5", () => {
    const budgets = new CallerBudgets(createRetryBudget({ ratio: 0, minPerSecond: 1_000 }));
    const budget = budgets.of("key:a");
    while (budget.tryWithdraw());
    expect(budget.balance).toBe(0);
    budget.answered();
    expect(budget.balance).toBe(1);
    for (let i = 0; i < 10; i++) budget.answered();
    expect(budget.balance).toBe(5);
  });

  test("a caller the relay cannot tell apart draws on the whole budget alone", () => {
    const whole = createRetryBudget({ ratio: 0, minPerSecond: 8 });
    const budgets = new CallerBudgets(whole);
    expect(lend(budgets.of(undefined), 20)).toBe(8);
    expect(budgets.size).toBe(0);
  });

  test("a lent retry given back returns to the caller's share and to the whole", () => {
    const whole = createRetryBudget({ ratio: 0, minPerSecond: 10 });
    const budgets = new CallerBudgets(whole);
    const budget = budgets.of("key:a");
    expect(lend(budget, 4)).toBe(4);
    expect(budget.balance).toBe(1);
    expect(whole.balance).toBe(6);
    giveBack(budget, 3);
    expect(budget.balance).toBe(4);
    expect(whole.balance).toBe(9);
  });

  test("callers unseen for a minute are forgotten", () => {
    const budgets = new CallerBudgets(createRetryBudget());
    for (let i = 0; i < 100; i++) budgets.of(`ip:192.0.2.${i}`);
    expect(budgets.size).toBe(100);
    vi.advanceTimersByTime(60_000);
    budgets.of("ip:198.51.100.1");
    expect(budgets.size).toBe(1);
  });
});

describe("RetryAllowance (a resumable stream's lent retries)", () => {
  test("gives back what is left once the answer began or the call ended, keeps it while waiting", () => {
    const begun = new RetryAllowance(4);
    expect(begun.tryWithdraw()).toBe(true);
    expect(begun.release(false)).toBe(3);
    expect(begun.tryWithdraw()).toBe(false);
    const waiting = new RetryAllowance(2);
    expect(waiting.release(true)).toBe(0);
    expect(waiting.tryWithdraw()).toBe(true);
    expect(waiting.tryWithdraw()).toBe(true);
    expect(waiting.tryWithdraw()).toBe(false);
  });

  test("a missing or malformed count gives back nothing", () => {
    for (const value of [null, "", "-1", "1.5", "x", "1e400"]) expect(parseReturned(value)).toBe(0);
    expect(parseReturned("3")).toBe(3);
  });
});

describe("callerOf", () => {
  const request = (headers: Record<string, string>): Request =>
    new Request("https://relay.test/v1/chat/completions", { headers });
  const callerOf = async (request: Request, keyed: boolean) =>
    (await identify(request, keyed, false)).id;

  test("by a hash of the relay key, never the key itself", async () => {
    const a = await callerOf(request({ authorization: "Bearer sk-relay-secret-a" }), true);
    const b = await callerOf(request({ authorization: "Bearer sk-relay-secret-b" }), true);
    expect(a).toMatch(/^key:[0-9a-f]{16}$/);
    expect(a).not.toContain("secret");
    expect(a).not.toBe(b);
    expect(await callerOf(request({ authorization: "Bearer sk-relay-secret-a" }), true)).toBe(a);
  });

  test("without keys, by client address: cf-connecting-ip, else x-forwarded-for's first", async () => {
    const both = { "cf-connecting-ip": "203.0.113.7", "x-forwarded-for": "198.51.100.2" };
    expect(await callerOf(request(both), false)).toBe("ip:203.0.113.7");
    const forwarded = { "x-forwarded-for": " 198.51.100.2 , 10.0.0.1" };
    expect(await callerOf(request(forwarded), false)).toBe("ip:198.51.100.2");
    // A relay that takes no keys ignores the header.
    expect(await callerOf(request({ authorization: "Bearer x", ...both }), false)).toBe(
      "ip:203.0.113.7",
    );
  });

  test("neither: the relay cannot tell, and says so", async () => {
    expect(await callerOf(request({}), false)).toBeUndefined();
  });

  test("a loopback address tells no callers apart (every local caller has it)", async () => {
    for (const address of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      expect(await callerOf(request({ "cf-connecting-ip": address }), false)).toBeUndefined();
    }
    expect(await callerOf(request({ "cf-connecting-ip": "128.0.0.1" }), false)).toBe(
      "ip:128.0.0.1",
    );
  });

  test("an Anthropic caller's x-api-key is its relay key", async () => {
    const a = await callerOf(request({ "x-api-key": "sk-relay-secret-a" }), true);
    const bearer = await callerOf(request({ authorization: "Bearer sk-relay-secret-a" }), true);
    expect(a).toMatch(/^key:[0-9a-f]{16}$/);
    expect(a).toBe(bearer);
  });
});
