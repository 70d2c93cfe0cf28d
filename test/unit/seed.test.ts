import { describe, expect, test } from "vitest";
import { chooseSeed, CI_SEED } from "../support/seed.ts";

// The seed of the property tests and fuzzes (test/support/seed.ts): given, fixed under CI, else
// random.

describe("the run's seed", () => {
  const random = () => 0.5;

  test("FC_SEED wins, under CI too", () => {
    expect(chooseSeed({ FC_SEED: "42" }, random)).toBe(42);
    expect(chooseSeed({ FC_SEED: "42", CI: "true" }, random)).toBe(42);
  });

  test("under CI it is fixed; elsewhere it is random", () => {
    for (const CI of ["true", "1", "yes"]) expect(chooseSeed({ CI }, random)).toBe(CI_SEED);
    for (const CI of [undefined, "", "0", "false", "FALSE"]) {
      expect(chooseSeed(CI === undefined ? {} : { CI }, random)).toBe(2 ** 30);
    }
  });

  test("an FC_SEED that is not an integer is a RangeError naming it and the value", () => {
    for (const FC_SEED of ["4x", "1.5", "9007199254740993"]) {
      expect(() => chooseSeed({ FC_SEED })).toThrow(
        new RangeError(`FC_SEED must be an integer, got ${JSON.stringify(FC_SEED)}`),
      );
    }
  });
});
