// Options checked against one declarative table, once per call: defaults filled in, a bad value
// or an unknown name (with its likely meaning: a misspelt `maxRetry` must not be ignored) thrown.

/** `[test, words, fallback, error]`: a missing value takes `fallback`, then must pass `test`. */
export type Rule = readonly [
  test: (value: unknown) => boolean,
  words: string,
  fallback?: unknown,
  error?: typeof TypeError,
];

export interface OptionTable {
  readonly [name: string]: Rule | OptionTable;
}

/** Whose options these are, as the messages say it. */
export interface Voice {
  /** What a message starts with (`stopstream`, `createRelay`). */
  prefix: string;
  /** The function whose options they are, for "`x` is not a … option". */
  owner: string;
  /** Whether names are written as code (`` `x` ``). */
  ticks: boolean;
}

export const STREAM_CHAT: Voice = { prefix: "stopstream", owner: "streamChat", ticks: true };

/** A new object with every option of `table`; `where` prefixes names (`"fallbacks[0]."`). */
export function checkOptions<T>(
  value: object,
  table: OptionTable,
  where: string,
  voice: Voice = STREAM_CHAT,
): T {
  const names = Object.keys(table);
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(table, key)) throw unknownOption(key, table, names, where, voice);
  }
  const checked: Record<string, unknown> = {};
  for (const name of names) {
    const rule = table[name]!;
    const given = (value as Record<string, unknown>)[name];
    if (!Array.isArray(rule)) {
      if (given !== undefined && (given === null || typeof given !== "object")) {
        throw mustBe(where + name, "an object", given, TypeError, voice);
      }
      checked[name] = checkOptions(given ?? {}, rule as OptionTable, `${where}${name}.`, voice);
      continue;
    }
    const [test, words, fallback, error] = rule as Rule;
    const option = given === undefined ? fallback : given;
    if (!test(option)) throw mustBe(where + name, words, option, error, voice);
    checked[name] = option;
  }
  return checked as T;
}

export function mustBe(
  name: string,
  words: string,
  value: unknown,
  error: typeof TypeError = TypeError,
  voice: Voice = STREAM_CHAT,
): TypeError {
  const got = typeof value === "function"
    ? "a function"
    : Array.isArray(value)
    ? "an array"
    : typeof value === "object" && value !== null
    ? "an object"
    : String(value);
  return new error(`${voice.prefix}: ${code(name, voice)} must be ${words}, got ${got}`);
}

function code(name: string, voice: Voice): string {
  return voice.ticks ? `\`${name}\`` : name;
}

function unknownOption(
  key: string,
  table: OptionTable,
  names: string[],
  where: string,
  voice: Voice,
): TypeError {
  // The same name where it belongs (`idleMs` for `timeouts.idleMs`), or a near spelling.
  let near: string | undefined;
  for (const name of names) {
    const inner = table[name]!;
    if (!Array.isArray(inner) && Object.hasOwn(inner, key)) near ??= `${name}.${key}`;
  }
  near ??= closestName(key, names);
  return new TypeError(
    `${voice.prefix}: ${code(where + key, voice)} is not a ${voice.owner} option; ${
      near === undefined
        ? `the options ${where === "" ? "" : `in ${code(where.slice(0, -1), voice)} `}are ${
          names.join(", ")
        }`
        : `did you mean ${code(where + near, voice)}?`
    }`,
  );
}

/** Within a few edits (case ignored), else a candidate containing it or contained in it. */
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
    let prefix = 0;
    while (word[prefix] !== undefined && word[prefix] === other[prefix]) prefix++;
    if (distance < bestDistance || (distance === bestDistance && prefix > bestPrefix)) {
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

/** Levenshtein: an adjacent swap counts two, which `closestName`'s thresholds allow for. */
function editDistance(a: string, b: string): number {
  const d: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row = d[i] = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = i === 0 ? j : Math.min(
        d[i - 1]![j]! + 1,
        row[j - 1]! + 1,
        d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
  }
  return d[a.length]![b.length]!;
}
