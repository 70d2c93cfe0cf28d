import { describe, expect, test } from "vitest";
import { ConnectionError } from "../../src/errors.ts";
import { UpstreamCooldowns } from "../../src/relay/cooldown.ts";

// The cooldown bookkeeping alone, on a clock the test sets (the relay's behaviour through
// createRelay is tested in workerd: test/workers/cooldown.test.ts).

function setup(failures = 1, cooldownMs = 1_000) {
  const clock = { now: 0 };
  const cooldowns = new UpstreamCooldowns(2, { failures, cooldownMs, now: () => clock.now });
  const fail = async (): Promise<void> => {
    const route = cooldowns.route();
    route.fetchFor(0, () => Promise.resolve(new Response(null, { status: 503 })))("x");
    await new Promise((resolve) => setTimeout(resolve, 0));
    route.watch(Promise.reject(new ConnectionError("stopstream: the connection was reset")));
    await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return { clock, cooldowns, fail };
}

describe("UpstreamCooldowns", () => {
  test("a probe that never reports back lapses after a cooldown's length", async () => {
    const { clock, cooldowns, fail } = setup();
    await fail();
    expect(cooldowns.route().order).toEqual([1]);
    clock.now = 1_000;
    const probe = cooldowns.route(); // never watched
    expect(probe.order).toEqual([0, 1]);
    expect(cooldowns.route().order).toEqual([1]);
    clock.now = 1_999;
    expect(cooldowns.route().order).toEqual([1]);
    clock.now = 2_000;
    expect(cooldowns.route().order).toEqual([0, 1]);
  });

  test("a route that may not probe skips an upstream whose cooldown is over, and claims nothing", async () => {
    const { clock, cooldowns, fail } = setup();
    await fail();
    clock.now = 1_000;
    expect(cooldowns.route(false).order).toEqual([1]);
    expect(cooldowns.route().order).toEqual([0, 1]);
  });
});
