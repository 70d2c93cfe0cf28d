import { afterEach, beforeEach, vi } from "vitest";

/** Fakes `Date` (timers stay real) for each test of the file, from `t0`; real again after. */
export function fakeDateFrom(t0: number): void {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(t0);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
