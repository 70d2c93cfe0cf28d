// The retries a resumable stream's call may make: lent by the Worker from the caller's budget
// (src/relay/caller_budget.ts), since the Durable Object cannot reach the isolate's budget.

import type { RetryBudget } from "../../core/retry_budget.ts";

/** How many lent retries the Durable Object gives back. Worker and Durable Object only. */
export const RETURNED_HEADER = "x-stopstream-retries-returned";

export class RetryAllowance implements RetryBudget {
  #left: number;

  constructor(lent: number) {
    this.#left = lent;
  }

  /** The Worker made the deposit for the call. */
  deposit(): void {}

  tryWithdraw(): boolean {
    if (this.#left < 1) return false;
    this.#left--;
    return true;
  }

  get balance(): number {
    return this.#left;
  }

  /** At the start response what is left goes back, as others need it; a failing call `keep`s it. */
  release(keep: boolean): number {
    if (keep) return 0;
    const left = this.#left;
    this.#left = 0;
    return left;
  }
}

/** The count in {@linkcode RETURNED_HEADER}; 0 when absent or malformed. */
export function parseReturned(value: string | null): number {
  const count = Number(value ?? 0);
  return Number.isSafeInteger(count) && count > 0 ? count : 0;
}
