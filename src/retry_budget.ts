/**
 * A retry budget shared by calls, in the manner of Envoy's retry budgets, Finagle's
 * `RetryBudget` and the AWS SDKs' retry quota: every call's first request deposits a fraction of
 * a retry, every retry withdraws a whole one, and a floor refills with time. During an outage
 * the retries stay a fraction of the traffic instead of multiplying it.
 *
 * @module
 */

/**
 * What a shared budget does; {@linkcode createRetryBudget} makes one. Checked by shape, so a
 * budget made by another copy of stopstream (npm and JSR in one app) works too.
 *
 * @example
 * ```ts
 * const budget: RetryBudget = createRetryBudget();
 * budget.deposit(); // a call's first request
 * if (budget.tryWithdraw()) console.log("retry");
 * ```
 */
export interface RetryBudget {
  /** Credits one call's first request: `ratio` of a retry. */
  deposit(): void;
  /** Takes one retry: `true` if the budget held one, `false` (and nothing taken) if not. */
  tryWithdraw(): boolean;
  /** How many retries it would allow right now. */
  readonly balance: number;
}

/**
 * Options of {@linkcode createRetryBudget}.
 *
 * @example
 * ```ts
 * const options: RetryBudgetOptions = { ratio: 0.1, minPerSecond: 5 };
 * ```
 */
export interface RetryBudgetOptions {
  /** Retries allowed per call, on top of the floor: 0.2 lets one call in five retry once. Default 0.2. */
  ratio?: number | undefined;
  /**
   * Retries per second allowed whatever the traffic, so a client with few calls still retries;
   * up to one second's worth is saved, and a new budget starts with it. Default 10.
   */
  minPerSecond?: number | undefined;
}

/** Deposits fade with this time constant: a call counts for about 10 s (Finagle keeps them 10 s). */
const FADE_MS = 10_000;

/**
 * Makes a retry budget to share between calls (`streamChat({ retryBudget })`). Over any span of
 * time, the retries it allows are at most `ratio` × the calls that deposited, plus
 * `minPerSecond` per second, plus the `minPerSecond` it starts with. Deposits fade over about
 * 10 s, so a long healthy spell does not save up a retry storm for the next outage.
 *
 * @example
 * ```ts
 * import { createRetryBudget, streamChat } from "stopstream";
 *
 * const retryBudget = createRetryBudget({ ratio: 0.2, minPerSecond: 10 });
 * const stream = streamChat({
 *   baseURL: "https://api.openai.com/v1",
 *   body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] },
 *   retryBudget, // the same object for every call
 * });
 * ```
 */
export function createRetryBudget(options: RetryBudgetOptions = {}): RetryBudget {
  const ratio = rate("ratio", options.ratio, 0.2);
  const floorMax = rate("minPerSecond", options.minPerSecond, 10);
  let floor = floorMax; // refills with time, up to one second's worth
  let earned = 0; // deposited by calls, fading
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
    get balance(): number {
      settle();
      return Math.floor(earned + floor);
    },
  };
}

/**
 * Whether `value` can serve as a retry budget (by shape: see {@linkcode RetryBudget}).
 *
 * @example
 * ```ts
 * isRetryBudget(createRetryBudget()); // true
 * ```
 */
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
