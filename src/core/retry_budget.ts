// A retry budget shared by calls (as Envoy, Finagle and the AWS SDKs do): during an outage the
// retries stay a fraction of the traffic instead of multiplying it.

/** A budget shared between calls; checked by shape, so another copy of stopstream's works too. */
export interface RetryBudget {
  /** Credits one call's first request: `ratio` of a retry. */
  deposit(): void;
  /** Takes one retry: `true` if the budget held one, `false` (and nothing taken) if not. */
  tryWithdraw(): boolean;
  /** How many retries it would allow right now. */
  readonly balance: number;
  /** Gives back a retry taken by `tryWithdraw` and not made (optional: older budgets lack it). */
  refund?(): void;
}

/** Options of {@linkcode createRetryBudget}. */
export interface RetryBudgetOptions {
  /** Retries allowed per call, on top of the floor (0.2: one call in five). Default 0.2. */
  ratio?: number | undefined;
  /** Retries per second allowed whatever the traffic (up to 1 s's worth saved). Default 10. */
  minPerSecond?: number | undefined;
}

/** Deposits fade with this time constant (Finagle keeps them 10 s). */
const FADE_MS = 10_000;

/**
 * Makes a retry budget to share between calls: retries ≤ `ratio` × calls + `minPerSecond` per
 * second. Deposits fade over about 10 s, so a healthy spell does not save up a retry storm.
 *
 * @example
 * ```ts
 * const retryBudget = createRetryBudget({ ratio: 0.2, minPerSecond: 10 });
 * streamChat({ baseURL, body, retryBudget }); // the same object for every call
 * ```
 */
export function createRetryBudget(options: RetryBudgetOptions = {}): RetryBudget {
  const ratio = rate("ratio", options.ratio, 0.2);
  const floorMax = rate("minPerSecond", options.minPerSecond, 10);
  let floor = floorMax;
  let earned = 0;
  let last = Date.now();
  const settle = (): void => {
    // A clock set back only pauses the budget: the same span is never credited twice.
    const elapsed = Date.now() - last;
    if (elapsed <= 0) return;
    last += elapsed;
    floor = Math.min(floorMax, floor + (elapsed * floorMax) / 1000);
    earned *= Math.exp(-elapsed / FADE_MS);
  };
  return {
    deposit(): void {
      settle();
      earned += ratio;
    },
    tryWithdraw(): boolean {
      settle();
      if (earned + floor < 1) return false;
      const taken = Math.min(1, earned);
      earned -= taken;
      floor -= 1 - taken;
      return true;
    },
    refund(): void {
      settle();
      earned++;
    },
    get balance(): number {
      settle();
      return Math.floor(earned + floor);
    },
  };
}

export function isRetryBudget(value: unknown): value is RetryBudget {
  const budget = value as RetryBudget | null;
  return typeof budget === "object" && budget !== null && typeof budget.deposit === "function" &&
    typeof budget.tryWithdraw === "function";
}

function rate(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new RangeError(
      `stopstream: createRetryBudget \`${name}\` must be a finite number ≥ 0, got ${value}`,
    );
  }
  return value;
}
