import type { Citation, Usage } from "../core/chat_result.ts";

/** A citation without a URL (a passage of a document the caller sent) has no place here. */
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

/** For a call the provider gave no id (`function_call`): the caller's `tool` message names it. */
export function callId(index: number): string {
  return `call_${index}`;
}
