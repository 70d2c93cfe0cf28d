/**
 * A fake clock for the tests that prove something did *not* happen, or that wait for a long
 * timer: `setTimeout`, `setInterval` and `Date` are vitest's fakes, which also move with real
 * time (so paced fixtures and short timeouts run as before), and `AbortSignal.timeout` follows
 * them. A test then jumps the clock past every wait instead of sleeping through it.
 *
 * @module
 */

import { afterEach, beforeEach, vi } from "vitest";

/**
 * How far {@link jumpPastEveryWait} moves the clock by default: past every wait of the library
 * (a backoff of at most `maxRetryAfterMs`, 60 s by default; the first-event timeout, 600 s).
 */
export const PAST_EVERY_WAIT_MS = 15 * 60_000;

const realTimeout = AbortSignal.timeout.bind(AbortSignal);
// Captured before any test installs the fakes: a real turn of the event loop.
const realImmediate = globalThis.setImmediate;

/** Node's `AbortSignal.timeout` runs on a timer the fakes cannot reach: this one can. */
function fakeTimeout(ms: number): AbortSignal {
  const controller = new AbortController();
  setTimeout(
    () =>
      controller.abort(
        new DOMException("The operation was aborted due to timeout", "TimeoutError"),
      ),
    ms,
  );
  return controller.signal;
}

/**
 * Installs the fake clock now (in a test, or a `beforeEach`); {@link uninstallFakeClock} undoes
 * it.
 *
 * @example
 * ```ts
 * installFakeClock(); try { … } finally { uninstallFakeClock(); }
 * ```
 */
export function installFakeClock(): void {
  vi.useFakeTimers({
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
    // The fake clock follows the real one, 1 ms at a time: a 1 ms backoff still takes about 1 ms.
    shouldAdvanceTime: true,
    advanceTimeDelta: 1,
  });
  AbortSignal.timeout = fakeTimeout;
}

/**
 * Back to real timers and the real `AbortSignal.timeout`.
 *
 * @example
 * ```ts
 * afterEach(uninstallFakeClock);
 * ```
 */
export function uninstallFakeClock(): void {
  AbortSignal.timeout = realTimeout;
  vi.useRealTimers();
}

/**
 * Runs every test of this file on the fake clock. Call once at the top of a test file.
 *
 * @example
 * ```ts
 * useFakeClock();
 * test("…", async () => { …; await upstream.expectNoMoreRequests(); });
 * ```
 */
export function useFakeClock(): void {
  beforeEach(installFakeClock);
  afterEach(uninstallFakeClock);
}

/**
 * Moves the fake clock `ms` ahead, firing every timer due on the way (each one's promise
 * callbacks run before the next fires), then lets what they started run for a few real turns
 * of the event loop. What a timer would have sent has then been sent: only absence is proved
 * this way, never used to wait for something that should happen.
 *
 * @example
 * ```ts
 * const before = upstream.count;
 * await jumpPastEveryWait();
 * expect(upstream.count).toBe(before);
 * ```
 */
export async function jumpPastEveryWait(ms: number = PAST_EVERY_WAIT_MS): Promise<void> {
  if (!vi.isFakeTimers()) {
    throw new Error("jumpPastEveryWait needs the fake clock: call useFakeClock() in this file");
  }
  await vi.advanceTimersByTimeAsync(ms);
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => realImmediate(resolve));
}
