// A retry needs a token from the relay's budget and from its caller's share: one caller whose
// requests only fail cannot spend the retries every other caller is owed.

import { noop } from "../core/constants.ts";
import type { RetryBudget } from "../core/retry_budget.ts";
import type { CallerId } from "./cooldown.ts";

/** A caller's share: retries for a fifth of its own calls (as the whole's default)… */
const RATIO = 0.2;
/** …plus a reserve only its answered calls refill (as gRPC's retry throttling), not time. */
const RESERVE = 5;
/** Deposits fade as the whole's do. */
const FADE_MS = 10_000;
/** Callers kept at most; the least recent goes first. */
const MAX_CALLERS = 10_000;
/** A caller unseen this long is forgotten (it comes back with a full reserve). */
const IDLE_MS = 60_000;

/** One call's budget: its caller's share and the whole, and the call's answer refills the share. */
export interface CallBudget extends RetryBudget {
  /** The call was answered (by any upstream). */
  answered(): void;
}

class Share {
  earned = 0;
  reserve = RESERVE;
  seen: number;

  constructor(now: number) {
    this.seen = now;
  }

  settle(now: number): void {
    const elapsed = now - this.seen;
    if (elapsed <= 0) return;
    this.seen = now;
    this.earned *= Math.exp(-elapsed / FADE_MS);
  }

  /** Earned deposits first, as the whole spends them. */
  take(): void {
    const taken = Math.min(1, this.earned);
    this.earned -= taken;
    this.reserve -= 1 - taken;
  }
}

export class CallerBudgets {
  #whole: RetryBudget;
  /** For callers the relay cannot tell apart: the whole alone. */
  #unknown: CallBudget;
  #shares = new Map<string, Share>();

  constructor(whole: RetryBudget) {
    this.#whole = whole;
    this.#unknown = {
      deposit: () => whole.deposit(),
      tryWithdraw: () => whole.tryWithdraw(),
      get balance() {
        return whole.balance;
      },
      refund: () => whole.refund?.(),
      answered: () => {},
    };
  }

  /** The budget of one call of `caller`; the whole alone for a caller the relay cannot tell. */
  of(caller: CallerId): CallBudget {
    if (caller === undefined) return this.#unknown;
    const whole = this.#whole;
    const share = this.#share(caller);
    const balance = (): number => {
      share.settle(Date.now());
      return share.earned + share.reserve;
    };
    return {
      deposit(): void {
        share.settle(Date.now());
        share.earned += RATIO;
        whole.deposit();
      },
      tryWithdraw(): boolean {
        // The share first: a caller with none left takes nothing from the whole.
        if (balance() < 1 || !whole.tryWithdraw()) return false;
        share.take();
        return true;
      },
      get balance(): number {
        return Math.min(Math.floor(balance()), whole.balance);
      },
      refund(): void {
        share.settle(Date.now());
        share.earned++;
        whole.refund?.();
      },
      answered(): void {
        share.reserve = Math.min(RESERVE, share.reserve + 1);
      },
    };
  }

  /** Least recently seen first in the map's order: moved to the end on each use. */
  #share(caller: string): Share {
    const now = Date.now();
    const shares = this.#shares;
    let share = shares.get(caller);
    if (share === undefined) share = new Share(now);
    else shares.delete(caller);
    share.settle(now);
    shares.set(caller, share);
    for (const [id, oldest] of shares) {
      if (shares.size <= MAX_CALLERS && now - oldest.seen < IDLE_MS) break;
      shares.delete(id);
    }
    return share;
  }

  /** Callers kept now (for tests). */
  get size(): number {
    return this.#shares.size;
  }
}

/** Takes up to `most` retries for a call made in a stream's Durable Object, which gives back. */
export function lend(budget: RetryBudget, most: number): number {
  let lent = 0;
  while (lent < most && budget.tryWithdraw()) lent++;
  return lent;
}

/** Gives back `count` retries lent by {@linkcode lend}. */
export function giveBack(budget: RetryBudget, count: number): void {
  for (let i = 0; i < count; i++) budget.refund?.();
}

/** An answered call refills its caller's share of the retry budget. */
export function watchAnswer(budget: CallBudget | undefined, result: Promise<unknown>): void {
  if (budget !== undefined) result.then(() => budget.answered(), noop);
}
