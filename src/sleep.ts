/**
 * The backoff wait. Abortable through {@linkcode CallControl}: a stop rejects it in the same
 * turn and clears its timer, so stop never waits out a backoff.
 *
 * @module
 */

import type { CallControl } from "./call_control.ts";

/**
 * Waits `ms` milliseconds unless the call is stopped first (then rejects with the stop error).
 *
 * @example
 * ```ts
 * await sleep(500, control); // rejects at once if control.stop(error) is called
 * ```
 */
export function sleep(ms: number, control: CallControl): Promise<void> {
  return new Promise((resolve, reject) => {
    if (control.stopError !== undefined) return reject(control.stopError);
    const handle = {
      cancel(reason: Error): void {
        clearTimeout(timer);
        reject(reason);
      },
    };
    const timer = setTimeout(() => {
      if (control.current === handle) control.current = undefined;
      resolve();
    }, ms);
    control.current = handle;
  });
}
