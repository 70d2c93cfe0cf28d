import { describe, expect, test } from "vitest";
import { type CallerId, UpstreamCooldowns } from "../../src/relay/cooldown.ts";

// Who failed an upstream decides whether it cools down (issue #29, item 2): the bookkeeping
// alone, on a clock the test sets. Black box under `npm start`: test/e2e/caller_fairness.test.ts.

const FAILED = ["failure", "success"] as const;

function setup(failures = 3, cooldownMs = 1_000) {
  const clock = { now: 0 };
  const cooldowns = new UpstreamCooldowns(2, { failures, cooldownMs, now: () => clock.now });
  /** One call of `caller`: the primary failed, the fallback answered. */
  const fail = (caller: CallerId): void => cooldowns.route(undefined, caller).report(FAILED);
  const cooled = (): boolean => cooldowns.route().order[0] === 1;
  return { clock, cooldowns, fail, cooled };
}

describe("UpstreamCooldowns, callers told apart", () => {
  test("one caller's failures alone never cool an upstream down, however many", () => {
    const { fail, cooled } = setup();
    for (let i = 0; i < 50; i++) fail("key:a");
    expect(cooled()).toBe(false);
  });

  test("an outage seen by many callers opens it within COOLDOWN_FAILURES failures, as before", () => {
    const { fail, cooled } = setup();
    fail("key:a");
    fail("key:b");
    expect(cooled()).toBe(false);
    fail("key:c");
    expect(cooled()).toBe(true);
  });

  test("two callers are enough: a, a, b opens it at the third failure", () => {
    const { fail, cooled } = setup();
    fail("key:a");
    fail("key:a");
    expect(cooled()).toBe(false);
    fail("key:b");
    expect(cooled()).toBe(true);
  });

  test("another caller's answered call ends the run: the attacker starts over alone", () => {
    const { cooldowns, fail, cooled } = setup();
    fail("key:a");
    fail("key:a");
    cooldowns.route(undefined, "key:b").report(["success"]);
    fail("key:a");
    fail("key:b");
    expect(cooled()).toBe(false); // a, b: two failures since the success
    fail("key:a");
    expect(cooled()).toBe(true);
  });

  test("failures count within the window from the first of the run (30 s)", () => {
    const { clock, fail, cooled } = setup();
    fail("key:a");
    fail("key:a");
    clock.now = 30_001;
    fail("key:b"); // a new run: b alone
    fail("key:b");
    expect(cooled()).toBe(false);
    fail("ip:203.0.113.9");
    expect(cooled()).toBe(true);
  });

  test("a failed probe renews the cooldown only if another caller renewed it last", () => {
    const { clock, cooldowns, fail, cooled } = setup();
    fail("key:b");
    fail("key:a"); // the real outage (or b's bad luck) plus the attacker…
    fail("key:a"); // …whose failure opens it
    expect(cooled()).toBe(true);
    clock.now = 1_000;
    cooldowns.route(undefined, "key:a").report(FAILED); // a probes and fails: a renewed it last
    expect(cooled()).toBe(false); // so the cooldown is over, and a's failure starts a run
    fail("key:a");
    expect(cooled()).toBe(false);
  });

  test("probes failed by callers in turn keep renewing it (an outage goes on)", () => {
    const { clock, cooldowns, fail, cooled } = setup();
    fail("key:a");
    fail("key:b");
    fail("key:c");
    for (const [i, caller] of ["key:a", "key:b", "key:a"].entries()) {
      clock.now = (i + 1) * 1_000;
      cooldowns.route(undefined, caller).report(FAILED);
      expect(cooled()).toBe(true);
    }
  });

  test("a late failure of the caller who opened it leaves the cooldown as it is", () => {
    const { clock, fail, cooled } = setup();
    fail("key:a");
    fail("key:b");
    fail("key:b");
    clock.now = 500;
    fail("key:b"); // a call begun before the cooldown, failed during it
    expect(cooled()).toBe(true);
    clock.now = 1_000;
    expect(cooled()).toBe(false); // not renewed: its end stays where it was
  });

  test("callers the relay cannot tell apart count each as its own, as every call did before", () => {
    const { fail, cooled } = setup();
    fail(undefined);
    fail(undefined);
    expect(cooled()).toBe(false);
    fail(undefined);
    expect(cooled()).toBe(true);
  });

  test("with COOLDOWN_FAILURES 1, a second caller's failure opens it", () => {
    const { fail, cooled } = setup(1);
    fail("key:a");
    expect(cooled()).toBe(false);
    fail("key:b");
    expect(cooled()).toBe(true);
  });
});
