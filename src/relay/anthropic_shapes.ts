// Anthropic Messages shapes the relay writes: a message, its stop reason, usage and errors.

import type { ChatResult, Citation, FinishReason, Usage } from "../core/chat_result.ts";
import type { RelayFailure } from "./error_response.ts";

type Json = Record<string, unknown>;

const STOP_REASONS: Readonly<Record<FinishReason, string>> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
  error: "end_turn",
};

/** Anthropic's own stop reasons, kept when an Anthropic upstream gave one. */
const ANTHROPIC_REASONS = new Set([
  "end_turn",
  "max_tokens",
  "stop_sequence",
  "tool_use",
  "pause_turn",
  "refusal",
  "model_context_window_exceeded",
]);

export function stopReason(result: ChatResult): string {
  const own = result.providerFinishReason;
  return own !== undefined && ANTHROPIC_REASONS.has(own) ? own : STOP_REASONS[result.finishReason];
}

export function anthropicUsage(usage: Usage | undefined): Json {
  if (usage === undefined) return { input_tokens: 0, output_tokens: 0 };
  const out: Json = { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens };
  if (usage.cachedInputTokens !== undefined) {
    out.cache_read_input_tokens = usage.cachedInputTokens;
  }
  return out;
}

/** Cited pages; the text block is the span, `encrypted_index` (Anthropic's own) has no source. */
export function anthropicCitations(citations: Citation[] | undefined): Json[] | undefined {
  let out: Json[] | undefined;
  for (const c of citations ?? []) {
    if (c.url === undefined) continue;
    (out ??= []).push({
      type: "web_search_result_location",
      url: c.url,
      title: c.title ?? null,
      encrypted_index: "",
      cited_text: c.citedText ?? "",
    });
  }
  return out;
}

function anthropicErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 529 || status === 503) return "overloaded_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

export function anthropicErrorBody(failure: RelayFailure): Json {
  return {
    type: "error",
    error: { type: anthropicErrorType(failure.status), message: failure.message },
  };
}

/** A `stream: false` answer: the upstream's own blocks when it spoke Anthropic Messages. */
export function toAnthropicMessage(result: ChatResult, id: string, model: string): Json {
  // An Anthropic upstream's own turn: `{ role, content: blocks }`.
  const output = result.target?.protocol === "anthropic-messages" ? result.output : undefined;
  const own = output !== undefined && !Array.isArray(output) && Array.isArray(output.content)
    ? output.content
    : undefined;
  return {
    id: result.id || id,
    type: "message",
    role: "assistant",
    model: result.model || model,
    content: own ?? contentOf(result),
    stop_reason: stopReason(result),
    stop_sequence: null,
    usage: anthropicUsage(result.usage),
  };
}

function contentOf(result: ChatResult): Json[] {
  const content: Json[] = [];
  if (result.reasoning !== "") {
    content.push({ type: "thinking", thinking: result.reasoning, signature: "" });
  }
  const text = result.content + (result.refusal ?? "");
  const citations = anthropicCitations(result.citations);
  if (citations !== undefined) content.push({ type: "text", text, citations });
  else if (text !== "") content.push({ type: "text", text });
  for (const call of result.toolCalls) {
    if (call.providerExecuted === true) continue;
    content.push({
      type: "tool_use",
      id: call.id,
      name: call.name || call.type,
      input: call.type === "custom" ? { input: call.arguments } : parseInput(call.arguments),
    });
  }
  return content;
}

function parseInput(args: string): unknown {
  try {
    const input: unknown = JSON.parse(args === "" ? "{}" : args);
    return typeof input === "object" && input !== null ? input : { value: input };
  } catch {
    return { _raw: args };
  }
}
