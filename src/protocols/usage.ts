/**
 * The one place that builds a {@linkcode Usage}, so every protocol fills it the same way.
 *
 * @module
 */

import type { Usage } from "../chat_result.ts";

/**
 * Builds a {@linkcode Usage}: `totalTokens` defaults to input + output, and the optional
 * counts are set only when the provider sent a number (absent, not `0`, when unknown).
 *
 * @example
 * ```ts
 * usage(3, 5, undefined, 2, undefined, {}).totalTokens; // 8
 * ```
 */
export function usage(
  inputTokens: number,
  outputTokens: number,
  totalTokens: number | null | undefined,
  cachedInputTokens: number | null | undefined,
  reasoningTokens: number | null | undefined,
  raw: unknown,
): Usage {
  const result: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: totalTokens ?? inputTokens + outputTokens,
    raw,
  };
  if (typeof reasoningTokens === "number") result.reasoningTokens = reasoningTokens;
  if (typeof cachedInputTokens === "number") result.cachedInputTokens = cachedInputTokens;
  return result;
}
