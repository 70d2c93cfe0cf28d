/**
 * What the retry loop, the transport and the backoff sleep share to be stoppable: the one
 * error that stopped the call, the one thing in flight right now, and how many requests the
 * call has made (for the `attempts` of an error that stops it).
 *
 * @module
 */

/**
 * Does nothing: the handler for a rejection nobody waits for (a cancel of a body being dropped).
 *
 * @example
 * ```ts
 * response.body?.cancel().catch(noop);
 * ```
 */
export const noop = (): void => {};

/** Something in flight that can be stopped at once: an attempt or a backoff sleep. */
export interface Cancellable {
  cancel(reason: Error): void;
}

/**
 * Stop state of one call. `stop()` is idempotent, synchronous, and never waits on the peer.
 *
 * @example
 * ```ts
 * const control = new CallControl();
 * control.stop(new Error("user pressed stop"));
 * control.stopError?.message; // "user pressed stop"
 * ```
 */
export class CallControl {
  /** Set once: the `InterruptedError` or total `TimeoutError` that ended the call. */
  stopError: Error | undefined = undefined;
  /** The attempt or sleep in flight; each sets itself here and clears itself when done. */
  current: Cancellable | undefined = undefined;
  /** HTTP requests made so far; the retry loop counts each one before it starts. */
  attempts = 0;
  /** A stream the server keeps running for this call (resume.ts): a stop reaches it too. */
  remote: Cancellable | undefined = undefined;

  /** Stops the call: records why, and cancels whatever is in flight. */
  stop(error: Error): void {
    if (this.stopError !== undefined) return;
    this.stopError = error;
    const current = this.current;
    this.current = undefined;
    if (current !== undefined) current.cancel(error);
    const remote = this.remote;
    this.remote = undefined;
    if (remote !== undefined) remote.cancel(error);
  }
}
