/**
 * Matchers for the expected results of the recorded corpus: long recorded strings are checked
 * by their first and last characters and their length (UTF-16 code units, as JavaScript counts
 * them), lists by their length and first elements.
 *
 * @module
 */

import { expect } from "vitest";

/** A vitest asymmetric matcher (any object with `asymmetricMatch`). */
export interface Matcher {
  asymmetricMatch(actual: unknown): boolean;
  toString(): string;
}

/**
 * A string that starts with `start`, ends with `end` and is `length` UTF-16 units long.
 *
 * @example
 * ```ts
 * expect(result).toMatchObject({ content: text("Hello", "today?", 108) });
 * ```
 */
export function text(start: string, end: string, length: number): Matcher {
  return {
    asymmetricMatch: (actual) =>
      typeof actual === "string" && actual.startsWith(start) && actual.endsWith(end) &&
      actual.length === length,
    toString: () => `text(${JSON.stringify(start)} … ${JSON.stringify(end)}, ${length})`,
  };
}

/**
 * An array of `length` elements whose first elements match `first` (as `toMatchObject`).
 *
 * @example
 * ```ts
 * expect(result).toMatchObject({ citations: list(14, { url: "https://…" }) });
 * ```
 */
export function list(length: number, ...first: unknown[]): Matcher {
  return {
    asymmetricMatch: (actual) => {
      if (!Array.isArray(actual) || actual.length !== length) return false;
      return first.every((item, i) => {
        try {
          expect(actual[i]).toMatchObject(item as object);
          return true;
        } catch {
          return false;
        }
      });
    },
    toString: () => `list(${length}, ${JSON.stringify(first).slice(0, 200)})`,
  };
}

/**
 * Output blocks or items of these `type`s, in this order (nothing else checked).
 *
 * @example
 * ```ts
 * expect(result.output).toMatchObject({ content: kinds("thinking", "tool_use") });
 * ```
 */
export function kinds(...types: string[]): Matcher {
  return {
    asymmetricMatch: (actual) =>
      Array.isArray(actual) && actual.length === types.length &&
      actual.every((item, i) => (item as { type?: unknown })?.type === types[i]),
    toString: () => `kinds(${types.join(", ")})`,
  };
}
