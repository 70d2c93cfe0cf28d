import { describe, expect, test } from "vitest";
import {
  APIStatusError,
  ConnectionError,
  InterruptedError,
  StreamProtocolError,
} from "../../src/core/error_classes.ts";
import { outcomeOf, UpstreamCooldowns } from "../../src/relay/cooldown.ts";
import { CallOutcomes, parseOutcomes } from "../../src/relay/streams/outcomes.ts";

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

  test("a reported success brings a probed upstream back; a reported failure cools it down again", async () => {
    const { clock, cooldowns, fail } = setup();
    await fail();
    clock.now = 1_000;
    const probe = cooldowns.route();
    expect(probe.order).toEqual([0, 1]);
    expect(cooldowns.route().order).toEqual([1]); // one probe at a time
    probe.report(["failure", "success"]);
    expect(cooldowns.route().order).toEqual([1]);
    clock.now = 2_000;
    cooldowns.route().report(["success"]);
    expect(cooldowns.route().order).toEqual([0, 1]);
  });

  test("an outcome still pending keeps the probe's claim until it lapses", async () => {
    const { clock, cooldowns, fail } = setup();
    await fail();
    clock.now = 1_000;
    const probe = cooldowns.route();
    expect(probe.order).toEqual([0, 1]);
    probe.report([undefined]);
    clock.now = 1_999;
    expect(cooldowns.route().order).toEqual([1]);
    clock.now = 2_000;
    expect(cooldowns.route().order).toEqual([0, 1]);
  });

  test("a report releases the claim on targets it never tried", () => {
    const { clock, cooldowns } = setup();
    cooldowns.route().report(["failure", "failure"]);
    clock.now = 1_000;
    const probe = cooldowns.route();
    expect(probe.order).toEqual([0, 1]); // the probe of both
    probe.report(["success"]); // the primary answered; the second was never tried
    expect(cooldowns.route().order).toEqual([0, 1]); // so another call may probe it
  });
});

describe("CallOutcomes (what a resumable stream's start response reports)", () => {
  const open = { type: "open", attempt: 1, status: 200, headers: {} } as const;
  const fallback = (index: number, status: number) =>
    ({ type: "fallback", index, error: new APIStatusError(status, {}, null) }) as const;

  test("a target left for the next failed (a 404 says nothing); the one that answered succeeded", () => {
    const outcomes = new CallOutcomes();
    outcomes.note(fallback(1, 503));
    outcomes.note(fallback(2, 404));
    outcomes.note(open);
    expect(outcomes.toString()).toBe("failure,neutral,success");
    expect(parseOutcomes(outcomes.toString())).toEqual(["failure", "neutral", "success"]);
  });

  test("a target still under way is pending; the call's error decides it", () => {
    const outcomes = new CallOutcomes();
    outcomes.note(fallback(1, 503));
    expect(outcomes.toString()).toBe("failure,pending");
    expect(parseOutcomes("failure,pending")).toEqual(["failure", undefined]);
    outcomes.fail(new ConnectionError("stopstream: the connection was reset"));
    expect(outcomes.toString()).toBe("failure,failure");
    const stopped = new CallOutcomes();
    stopped.fail(new InterruptedError());
    expect(stopped.toString()).toBe("neutral");
  });

  test("an upstream answering in another protocol fails; a malformed stream says nothing", () => {
    const foreign = new StreamProtocolError("stopstream: its events are anthropic-messages events");
    foreign.foundProtocol = "anthropic-messages";
    expect(outcomeOf(foreign)).toBe("failure");
    expect(outcomeOf(new StreamProtocolError("stopstream: a malformed stream"))).toBe("neutral");
  });

  test("a missing or malformed header reports nothing", () => {
    for (const value of [null, "", "success,maybe", "constructor"]) {
      expect(parseOutcomes(value)).toBeUndefined();
    }
  });
});
