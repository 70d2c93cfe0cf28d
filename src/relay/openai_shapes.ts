/**
 * Pieces of a `ChatResult` in OpenAI's chat shapes, shared by the relay's streamed chunks
 * (chunks.ts) and its whole `chat.completion` (completion.ts): citations as `annotations`,
 * usage in OpenAI's field names, and the id of a call its provider gave none.
 *
 * @module
 */

import type { Citation, Usage } from "../chat_result.ts";

/**
 * Citations as OpenAI `url_citation` annotations (`undefined` when there are none). A citation
 * without a URL (a passage of a document the caller sent) has no place in that shape and is
 * left out.
 *
 * @example
 * ```ts
 * toAnnotations([{ url: "https://example.com", title: "Example" }])?.[0]?.type; // "url_citation"
 * ```
 */
export function toAnnotations(
  citations: Citation[] | undefined,
): Array<Record<string, unknown>> | undefined {
  const annotations: Array<Record<string, unknown>> = [];
  for (const c of citations ?? []) {
    if (c.url === undefined) continue;
    annotations.push({
      type: "url_citation",
      url_citation: {
        url: c.url,
        title: c.title ?? c.url,
        start_index: c.start ?? 0,
        end_index: c.end ?? 0,
      },
    });
  }
  return annotations.length > 0 ? annotations : undefined;
}

/**
 * Normalised usage in OpenAI's field names.
 *
 * @example
 * ```ts
 * toOpenAIUsage({ inputTokens: 3, outputTokens: 5, totalTokens: 8, raw: {} }).total_tokens; // 8
 * ```
 */
export function toOpenAIUsage(usage: Usage): Record<string, unknown> {
  const openai: Record<string, unknown> = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.totalTokens,
  };
  if (usage.cachedInputTokens !== undefined) {
    openai.prompt_tokens_details = { cached_tokens: usage.cachedInputTokens };
  }
  if (usage.reasoningTokens !== undefined) {
    openai.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  }
  return openai;
}

/**
 * The id of a call the provider gave none (the legacy `function_call`): the caller must name it
 * in the `tool` message it sends back.
 */
export function callId(index: number): string {
  return `call_${index}`;
}
