/**
 * The seed of every property test and fuzz, one per test run: `FC_SEED` when it is set, a fixed
 * one under CI (the `CI` environment variable), else a random one. The vitest configs choose it
 * ({@link chooseSeed}) in the process that starts the run and hand it to every test file, in
 * Node and in workerd alike, through `provide`; a test file takes it with {@link seedFor}, which
 * logs how to run it again.
 *
 * @module
 */

import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's seed ({@link chooseSeed}). */
    seed: number;
  }
}

/** The environment variable that sets the seed. */
export const SEED_VARIABLE = "FC_SEED";

/** The seed under CI, so that a CI run can be repeated exactly. */
export const CI_SEED = 20250101;

/**
 * The run's seed: `FC_SEED` if set (it must be an integer), else {@link CI_SEED} when `CI` is
 * set (to anything but `""`, `0` or `false`), else a random one.
 *
 * @example
 * ```ts
 * export default defineConfig({ test: { provide: { seed: chooseSeed(process.env) } } });
 * ```
 */
export function chooseSeed(
  env: Record<string, string | undefined>,
  random: () => number = Math.random,
): number {
  const given = env[SEED_VARIABLE];
  if (given !== undefined && given !== "") {
    const seed = Number(given);
    if (!Number.isSafeInteger(seed)) {
      throw new RangeError(`${SEED_VARIABLE} must be an integer, got ${JSON.stringify(given)}`);
    }
    return seed;
  }
  const ci = env.CI;
  if (ci !== undefined && !["", "0", "false"].includes(ci.toLowerCase())) return CI_SEED;
  return Math.floor(random() * 2 ** 31);
}

/**
 * The run's seed, logged for `name` as `name: seed <n> (rerun with FC_SEED=<n>)`.
 *
 * @example
 * ```ts
 * const SEED = seedFor("core_property");
 * await fc.assert(property, { seed: SEED, numRuns: 100 });
 * ```
 */
export function seedFor(name: string): number {
  const seed = inject("seed");
  if (!Number.isSafeInteger(seed)) {
    throw new Error("no seed provided: the vitest config must set `provide: { seed }`");
  }
  console.log(`${name}: seed ${seed} (rerun with ${SEED_VARIABLE}=${seed})`);
  return seed;
}
