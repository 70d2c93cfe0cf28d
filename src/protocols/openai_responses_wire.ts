import { upstreamError } from "./upstream_error.ts";
import { usage } from "./usage.ts";
import type { UpstreamStreamError } from "../core/error_classes.ts";
import type { Usage } from "../core/chat_result.ts";
import type { EventData } from "./event_data.ts";
import type { Accumulator } from "../core/accumulator.ts";

/** Usage as the Responses API reports it. */
export interface ResponsesUsage {
  /** Input tokens, cached ones included. */
  input_tokens?: number;
  /** Output tokens, reasoning included. */
  output_tokens?: number;
  /** Input plus output. */
  total_tokens?: number;
  /** The cached part of the input. */
  input_tokens_details?: { cached_tokens?: number };
  /** The reasoning part of the output. */
  output_tokens_details?: { reasoning_tokens?: number };
}

/** An output item: the fields stopstream reads (`result.output` keeps every field, as sent). */
export type ResponsesOutputItem =
  | {
    type: "message";
    id: string;
    role?: "assistant";
    content?: ResponsesContentPart[];
    /** `"commentary"` (a preamble) or `"final_answer"`, on models that phase their output. */
    phase?: string;
  }
  | {
    type: "reasoning";
    id: string;
    summary?: Array<{ type: "summary_text"; text: string }>;
    content?: Array<{ type: "reasoning_text"; text: string }>;
    encrypted_content?: string;
  }
  | { type: "function_call"; id?: string; call_id: string; name: string; arguments: string }
  | { type: "custom_tool_call"; id?: string; call_id: string; name: string; input: string }
  | { type: "apply_patch_call"; id?: string; call_id: string; operation: unknown }
  | {
    type: "shell_call" | "local_shell_call" | "computer_call";
    id?: string;
    call_id: string;
    action: unknown;
  }
  | {
    type: "mcp_approval_request";
    id: string;
    name: string;
    server_label: string;
    arguments: string;
  };

/** An annotation on a text part: a cited URL or file. */
export interface ResponsesAnnotation {
  /** `url_citation`, `file_citation`, `container_file_citation`, `file_path`… */
  type: string;
  /** The cited page (`url_citation`). */
  url?: string;
  /** The cited page's title (`url_citation`). */
  title?: string;
  /** The cited file (`file_citation`, `container_file_citation`). */
  file_id?: string;
  /** The cited file's name. */
  filename?: string;
  /** Where the cited span of the part's text starts (UTF-16 offset). */
  start_index?: number;
  /** Where it ends. */
  end_index?: number;
  /** The position a `file_citation` refers to. */
  index?: number;
}

/** A content part of a `message` output item. */
export type ResponsesContentPart =
  | { type: "output_text"; text: string; annotations?: ResponsesAnnotation[] }
  | { type: "refusal"; refusal: string };

/** A Response object (`response.created` … `response.completed`, or a non-streaming answer). */
export interface ResponsesResponse {
  /** The response id (`resp_…`). */
  id: string;
  /** The model that answers. */
  model: string;
  /** Where the response is in its life cycle. */
  status?: "completed" | "failed" | "in_progress" | "incomplete" | "cancelled" | "queued";
  /** The output items: messages, reasoning, tool calls, hosted-tool items. */
  output?: ResponsesOutputItem[];
  /** Token usage, on the final response. */
  usage?: ResponsesUsage | null;
  /** Why an `incomplete` response stopped (`max_output_tokens`, `content_filter`). */
  incomplete_details?: { reason?: string } | null;
  /** Why a `failed` response failed. */
  error?: { code: string; message: string } | null;
}

/** Fields of the events that point into one output item. */
interface ItemRef {
  item_id: string;
  output_index: number;
  sequence_number?: number;
}

/** One Responses stream event (the JSON in `data:`), discriminated on `type`. */
export type ResponsesStreamEvent =
  | {
    type: `response.${"created" | "in_progress" | "completed" | "incomplete" | "failed"}`;
    response: ResponsesResponse;
    sequence_number?: number;
  }
  | ItemRef & {
    type: `response.${
      | "output_text"
      | "refusal"
      | "reasoning_text"
      | "reasoning_summary_text"
      | "function_call_arguments"
      | "custom_tool_call_input"}.delta`;
    delta: string;
  }
  | ItemRef & { type: "response.function_call_arguments.done"; arguments: string }
  | ItemRef & { type: "response.reasoning_summary_part.added"; summary_index: number }
  | {
    type: "response.output_item.added" | "response.output_item.done";
    output_index: number;
    item: ResponsesOutputItem;
  }
  | { type: "error"; code: string | null; message: string; param: string | null };

/** An `error` event, a `response.failed` event or an `{"error": {…}}` body. */
export function responsesError(payload: unknown): UpstreamStreamError {
  if (typeof payload === "string") return upstreamError(payload);
  const p = (payload ?? {}) as EventData;
  // `error` events: code and message at the top level (some servers: in `error`);
  // `response.failed`: in `response.error` (some servers: `error`); error bodies: in `error`.
  const fields = p.type === "response.failed"
    ? p.response?.error ?? p.error ?? {}
    : p.error !== null && typeof p.error === "object"
    ? p.error
    : p;
  const code = typeof fields.code === "string"
    ? fields.code
    : typeof fields.type === "string" && fields.type !== "error"
    ? fields.type
    : undefined;
  const message = typeof fields.message === "string" ? fields.message : JSON.stringify(fields);
  return upstreamError({ error: { type: code, message } }, payload);
}

export function responsesUsage(raw: ResponsesUsage): Usage {
  return usage(
    raw.input_tokens ?? 0,
    raw.output_tokens ?? 0,
    raw.total_tokens,
    raw.input_tokens_details?.cached_tokens,
    raw.output_tokens_details?.reasoning_tokens,
    raw,
  );
}

/** Usage and the finish reason of a final response; `tool_calls` needs a call of the caller's. */
export function responsesFinish(response: EventData, acc: Accumulator): void {
  if (response?.usage != null) acc.setUsage(responsesUsage(response.usage));
  const reason = response?.incomplete_details?.reason;
  if (response?.status === "incomplete" || typeof reason === "string") {
    const provider = typeof reason === "string" ? reason : "incomplete";
    // An incomplete answer was cut short; only a filter says otherwise.
    acc.setFinish(provider === "content_filter" ? "content_filter" : "length", provider);
  } else {
    const status = typeof response?.status === "string" ? response.status : undefined;
    const callers = acc.toolCalls.some((call) => call.providerExecuted !== true);
    acc.setFinish(callers ? "tool_calls" : "stop", status);
  }
}
