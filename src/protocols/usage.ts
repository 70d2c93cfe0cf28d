import type { Usage } from "../core/chat_result.ts";

/** The one place a `Usage` is built; the optional counts stay absent (not `0`) when unknown. */
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
