import type { TraceEntry } from "../core/chat_result.ts";

export interface Cancellable {
  cancel(reason: Error): void;
}

/** Stop state of one call; `stop()` is idempotent, synchronous, and never waits on the peer. */
export class CallControl {
  /** Set once: the `InterruptedError` or total `TimeoutError` that ended the call. */
  stopError: Error | undefined = undefined;
  /** The attempt or sleep in flight; each sets itself here and clears itself when done. */
  current: Cancellable | undefined = undefined;
  /** Counted before each request starts (an error's `attempts`). */
  attempts = 0;
  /** One entry per request (`result.trace`); `waitMs` is the wait before the next. */
  trace: TraceEntry[] = [];
  waitMs = 0;
  /** A stream the server keeps running for this call (resume.ts): a stop reaches it too. */
  remote: Cancellable | undefined = undefined;

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
