// The Responses API's shapes the relay writes: a response, its output items, its usage.

import type { ChatResult, Citation, Usage } from "../core/chat_result.ts";

type Json = Record<string, unknown>;

/** One output item being written: its kind, id, and the text or arguments it gathered. */
export interface Item {
  kind: "message" | "reasoning" | "function_call";
  id: string;
  text: string;
  callId: string;
  name: string;
  /** Its `item_id` and `output_index` as delta events write them, once made. */
  where?: string;
  /** A message's `url_citation` annotations, set at the end of the answer. */
  annotations?: Json[];
}

/**
 * Annotations of a message holding the answer's text from `from`, `length` long: a span counts
 * from its start, one outside it (or none) is 0–0; a citation without a URL has no counterpart.
 */
export function urlCitations(
  citations: Citation[] | undefined,
  from: number,
  length: number,
): Json[] | undefined {
  let out: Json[] | undefined;
  for (const { url, title, start = -1, end = -1 } of citations ?? []) {
    if (url === undefined) continue;
    const inside = start >= from && end >= start && end <= from + length;
    (out ??= []).push({
      type: "url_citation",
      url,
      title: title ?? url,
      start_index: inside ? start - from : 0,
      end_index: inside ? end - from : 0,
    });
  }
  return out;
}

export function responsesUsage(usage: Usage | undefined): Json | null {
  if (usage === undefined) return null;
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.totalTokens,
  };
}

/** `status` and `incomplete_details` of a finished answer. */
export function ending(result: ChatResult): Json {
  if (result.finishReason === "length") {
    return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  }
  if (result.finishReason === "content_filter") {
    return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  }
  return { status: "completed", incomplete_details: null };
}

export function responseShell(id: string, model: string, createdAt: number, status: string): Json {
  return {
    id,
    object: "response",
    created_at: createdAt,
    status,
    error: null,
    incomplete_details: null,
    model,
    output: [],
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    store: false,
    usage: null,
  };
}

export function itemJson(item: Item, status: string, empty: boolean): Json {
  const text = empty ? "" : item.text;
  if (item.kind === "message") {
    const annotations = item.annotations ?? [];
    const content = empty ? [] : [{ type: "output_text", text, annotations }];
    return { id: item.id, type: "message", status, role: "assistant", content };
  }
  if (item.kind === "reasoning") {
    return {
      id: item.id,
      type: "reasoning",
      summary: empty ? [] : [{ type: "summary_text", text }],
    };
  }
  return {
    id: item.id,
    type: "function_call",
    status,
    call_id: item.callId,
    name: item.name,
    arguments: text,
  };
}
