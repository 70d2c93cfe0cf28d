/**
 * Unknown option names: a misspelt option (`maxRetry`) must fail at once with a `TypeError`
 * that names it and the closest known one, instead of being silently ignored. Checked once per
 * call, never per event.
 *
 * @module
 */

/**
 * The option names an object may have: `true` for a plain option, a nested shape for an
 * option that is itself an object of options (`timeouts`, `retry`).
 */
export interface OptionShape {
  readonly [name: string]: true | OptionShape;
}

/**
 * Throws a `TypeError` for the first own key of `value` (or of a nested option object) that
 * `shape` does not name. The message names the key and the option it most likely means: a
 * near spelling, or the same name where it belongs (`idleMs` → `timeouts.idleMs`). `where`
 * prefixes the names (`"fallbacks[0]."`).
 *
 * @example
 * ```ts
 * rejectUnknownKeys({ maxRetry: 3 }, { maxRetries: true }, "");
 * // TypeError: stopstream: `maxRetry` is not a streamChat option; did you mean `maxRetries`?
 * ```
 */
export function rejectUnknownKeys(value: object, shape: OptionShape, where: string): void {
  for (const key of Object.keys(value)) {
    const known = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (known === true) continue;
    if (known !== undefined) {
      const inner = (value as Record<string, unknown>)[key];
      if (typeof inner === "object" && inner !== null) {
        rejectUnknownKeys(inner, known, `${where}${key}.`);
      }
      continue;
    }
    const names = Object.keys(shape);
    const near = misplaced(key, shape) ?? closestName(key, names);
    throw new TypeError(
      `stopstream: \`${where}${key}\` is not a streamChat option; ${
        near === undefined
          ? `the options ${where === "" ? "" : `in \`${where.slice(0, -1)}\` `}are ${
            names.join(", ")
          }`
          : `did you mean \`${where}${near}\`?`
      }`,
    );
  }
}

/** `key` is an option one level down (`idleMs` for `timeouts.idleMs`): its path there. */
function misplaced(key: string, shape: OptionShape): string | undefined {
  for (const [name, inner] of Object.entries(shape)) {
    if (inner !== true && Object.hasOwn(inner, key)) return `${name}.${key}`;
  }
  return undefined;
}

/**
 * The candidate that `name` most likely misspells: within a few edits (ignoring case; a swap
 * of two neighbours counts as one), or else one that contains it or is contained in it
 * (`retries` for `maxRetries`); `undefined` when none is that close.
 *
 * @example
 * ```ts
 * closestName("maxRetry", ["maxRetries", "retry", "timeouts"]); // "maxRetries"
 * closestName("bogus", ["model", "json"]); // undefined
 * ```
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const word = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = word.length <= 3 ? 1 : Math.max(2, Math.floor(word.length * 0.4));
  let bestPrefix = -1;
  let part: string | undefined;
  for (const candidate of candidates) {
    const other = candidate.toLowerCase();
    const distance = editDistance(word, other);
    // Ties go to the longer common start: `maxRetry` means `maxRetries` more than `retry`.
    const prefix = commonPrefix(word, other);
    if (
      distance < bestDistance || (distance === bestDistance && prefix > bestPrefix)
    ) {
      best = candidate;
      bestDistance = distance;
      bestPrefix = prefix;
    }
    if (part === undefined && word.length >= 4 && (other.includes(word) || word.includes(other))) {
      part = candidate;
    }
  }
  return best ?? part;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      }
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}
