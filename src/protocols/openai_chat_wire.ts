import { usage } from "./usage.ts";
import type { Usage } from "../core/chat_result.ts";

/** One `chat.completion.chunk` as sent on the wire (the fields stopstream reads). */
export interface OpenAIChatChunk {
  /** The completion's id (the same on every chunk). */
  id?: string;
  /** The model that answers. */
  model?: string;
  /** One entry per choice; stopstream reads choice 0. */
  choices?: Array<{
    index?: number;
    delta?: {
      role?: string;
      /** Text, or (Mistral's reasoning models) a list of `text` and `thinking` parts. */
      content?: string | null | OpenAIContentPart[];
      reasoning_content?: string | null;
      reasoning?: string | null;
      refusal?: string | null;
      tool_calls?: OpenAIToolCallDelta[];
      /** The legacy `functions` API's one call: a name, then pieces of its arguments. */
      function_call?: { name?: string; arguments?: string };
      /** Cited sources (`url_citation`), all at once (OpenAI) or one per chunk (OpenRouter). */
      annotations?: unknown[];
      /** OpenRouter's reasoning blocks, streamed in fragments merged by `index`. */
      reasoning_details?: unknown[];
    };
    finish_reason?: string | null;
  }>;
  /** The usage chunk (with `stream_options.include_usage`). */
  usage?: OpenAIUsage | null;
  /** Groq's own fields; some Groq servers send usage only here. */
  x_groq?: { usage?: OpenAIUsage | null };
  /** An error some servers send in the stream instead of a chunk. */
  error?: unknown;
  /** Perplexity: the URLs the answer cites, repeated on every chunk. */
  citations?: string[];
  /** Perplexity: the search results behind `citations` (`title`, `url`, `date`…). */
  search_results?: unknown[];
}

/** A part of an array `content` (Mistral): answer text, or reasoning as text chunks. */
export type OpenAIContentPart =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: Array<{ type: "text"; text: string }> };

/** A tool-call fragment inside `delta.tool_calls`. */
export interface OpenAIToolCallDelta {
  /** Which tool call this fragment belongs to. */
  index?: number;
  /** The call's id, on its first fragment. */
  id?: string;
  /** `"function"`. */
  type?: string;
  /** The name on the first fragment, then pieces of the JSON arguments. */
  function?: { name?: string; arguments?: string };
  /** Provider-specific data some servers attach to a call. */
  extra_content?: unknown;
}

/** Usage as OpenAI reports it. */
export interface OpenAIUsage {
  /** Prompt tokens, cached ones included. */
  prompt_tokens?: number;
  /** Generated tokens, reasoning included. */
  completion_tokens?: number;
  /** Prompt plus completion. */
  total_tokens?: number;
  /** The cached part of the prompt. */
  prompt_tokens_details?: { cached_tokens?: number };
  /** The reasoning part of the completion. */
  completion_tokens_details?: { reasoning_tokens?: number };
}

export function openAIUsage(raw: OpenAIUsage): Usage {
  return usage(
    raw.prompt_tokens ?? 0,
    raw.completion_tokens ?? 0,
    raw.total_tokens,
    raw.prompt_tokens_details?.cached_tokens,
    raw.completion_tokens_details?.reasoning_tokens,
    raw,
  );
}
