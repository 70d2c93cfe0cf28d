import type { CallControl } from "./call_control.ts";

/** A stop rejects it in the same turn and clears its timer: stop never waits out a backoff. */
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
