/**
 * OpenAI Responses streams: `POST {baseURL}/responses` with `stream: true`, semantic SSE
 * events (`response.created`, `response.output_text.delta`, …) ending with
 * `response.completed` or `response.incomplete` (there is no `[DONE]`).
 *
 * @module
 */

import type { Accumulator } from "../accumulator.ts";
import type { UpstreamStreamError } from "../errors.ts";
import type { Usage } from "../types.ts";
import {
  EVENT_PROGRESS,
  EVENT_TERMINAL,
  type EventOutcome,
  type Protocol,
  type ProtocolRequest,
  type RequestTarget,
  type StreamDecoder,
} from "./protocol.ts";
import { bearerHeaders, joinURL } from "./request.ts";
import { upstreamError } from "./upstream_error.ts";
import { usage } from "./usage.ts";
import { errorEventPayload, type EventData, parseEventData } from "./event_data.ts";

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

/** An output item (the fields stopstream reads). */
export type ResponsesOutputItem =
  | { type: "message"; id: string; role?: "assistant"; content?: ResponsesContentPart[] }
  | {
    type: "reasoning";
    id: string;
    summary?: Array<{ type: "summary_text"; text: string }>;
    content?: Array<{ type: "reasoning_text"; text: string }>;
  }
  | { type: "function_call"; id?: string; call_id: string; name: string; arguments: string };

/** A content part of a `message` output item. */
export type ResponsesContentPart =
  | { type: "output_text"; text: string }
  | { type: "refusal"; refusal: string };

/** A Response object (`response.created` … `response.completed`, or a non-streaming answer). */
export interface ResponsesResponse {
  /** The response id (`resp_…`). */
  id: string;
  /** The model that answers. */
  model: string;
  /** Where the response is in its life cycle. */
  status?: "completed" | "failed" | "in_progress" | "incomplete" | "cancelled" | "queued";
  /** The output items: messages, reasoning, function calls. */
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
      | "function_call_arguments"}.delta`;
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

class ResponsesDecoder implements StreamDecoder {
  #acc: Accumulator;
  /** `output_index` → index in `acc.toolCalls`. */
  #slots: Array<number | undefined> = [];
  /** Item id of each tool call, by `acc.toolCalls` index (for events without output_index). */
  #itemIds: string[] = [];

  constructor(acc: Accumulator) {
    this.#acc = acc;
  }

  onEvent(event: string | undefined, data: string): EventOutcome {
    // An `event: error` whose data is text (a gateway's `data: Internal server error`) is
    // still an error report, not bad framing.
    if (event === "error") throw responsesError(errorEventPayload(data));
    const message = parseEventData(data);
    const acc = this.#acc;
    switch (message.type ?? event) {
      case "response.output_text.delta":
        if (typeof message.delta === "string") acc.addText(message.delta);
        return EVENT_PROGRESS;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (typeof message.delta === "string") acc.addReasoning(message.delta);
        return EVENT_PROGRESS;
      case "response.function_call_arguments.delta":
        if (typeof message.delta === "string") {
          acc.addToolArguments(this.#slot(message), message.delta);
        }
        return EVENT_PROGRESS;
      case "response.refusal.delta":
        if (typeof message.delta === "string") acc.addRefusal(message.delta);
        return EVENT_PROGRESS;
      case "response.reasoning_summary_part.added":
        // Summary parts are paragraphs; without a break they would run into each other.
        if (message.summary_index > 0 && acc.reasoning !== "") acc.addReasoning("\n\n");
        return EVENT_PROGRESS;
      case "response.output_item.added": {
        const item = message.item;
        if (item?.type === "function_call") {
          const slot = acc.startToolCall(String(item.call_id ?? ""), String(item.name ?? ""));
          if (typeof message.output_index === "number") this.#slots[message.output_index] = slot;
          this.#itemIds[slot] = String(item.id ?? "");
          if (typeof item.arguments === "string") acc.addToolArguments(slot, item.arguments);
        }
        return EVENT_PROGRESS;
      }
      case "response.function_call_arguments.done":
      case "response.output_item.done": {
        // Servers that send no deltas still send the whole arguments at the end. The slot is
        // looked up only for those: message and reasoning items end with a `done` too.
        const args = message.arguments ?? message.item?.arguments;
        if (typeof args !== "string") return EVENT_PROGRESS;
        const slot = this.#slot(message);
        if (acc.toolCalls[slot]?.arguments === "") acc.addToolArguments(slot, args);
        return EVENT_PROGRESS;
      }
      case "response.created":
      case "response.in_progress":
        identify(message.response, acc);
        return EVENT_PROGRESS;
      case "response.completed":
      case "response.incomplete":
        identify(message.response, acc);
        finish(message.response, acc);
        return EVENT_TERMINAL;
      case "response.failed":
      case "error":
        throw responsesError(message);
      default:
        return EVENT_PROGRESS;
    }
  }

  endedCleanly(): boolean {
    return false;
  }

  /** The tool call an event belongs to, or -1 (which `addToolArguments` ignores). */
  #slot(message: EventData): number {
    return this.#slots[message.output_index] ??
      this.#itemIds.indexOf(message.item_id ?? message.item?.id);
  }
}

function identify(response: EventData, acc: Accumulator): void {
  if (acc.id === "" && typeof response?.id === "string") acc.id = response.id;
  if (acc.model === "" && typeof response?.model === "string") acc.model = response.model;
}

function finish(response: EventData, acc: Accumulator): void {
  if (response?.usage != null) acc.setUsage(responsesUsage(response.usage));
  const reason = response?.incomplete_details?.reason;
  if (response?.status === "incomplete" || typeof reason === "string") {
    const provider = typeof reason === "string" ? reason : "incomplete";
    // An incomplete answer was cut short; only a filter says otherwise.
    acc.setFinish(provider === "content_filter" ? "content_filter" : "length", provider);
  } else {
    const status = response?.status ?? "completed";
    acc.setFinish(acc.toolCalls.length > 0 ? "tool_calls" : "stop", status);
  }
}

/**
 * Turns a Responses error (an `error` event, a `response.failed` event, or an
 * `{"error": {…}}` body) into an `UpstreamStreamError`, transient when its code says so.
 *
 * @example
 * ```ts
 * responsesError({ type: "error", code: "server_error", message: "try again" }).retryable; // true
 * ```
 */
export function responsesError(payload: unknown): UpstreamStreamError {
  if (typeof payload === "string") return upstreamError(payload);
  const p = (payload ?? {}) as EventData;
  // `error` events carry code and message at the top level (or, from some servers, in
  // `error`), `response.failed` in `response.error` (some compatible servers: `error`), plain
  // error bodies in `error`.
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
  // Classified like every other protocol's error; `data` stays the event as sent.
  return upstreamError({ error: { type: code, message } }, payload);
}

/**
 * Maps Responses usage to {@linkcode Usage}.
 *
 * @example
 * ```ts
 * responsesUsage({ input_tokens: 3, output_tokens: 5, total_tokens: 8 }).totalTokens; // 8
 * ```
 */
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

/** Delivers a whole (non-streaming) Response object to the accumulator. */
function decodeMessage(message: unknown, acc: Accumulator): void {
  const response = message as EventData;
  if (response?.status === "failed") throw responsesError({ type: "response.failed", response });
  identify(response, acc);
  for (const item of Array.isArray(response?.output) ? response.output : []) {
    if (item?.type === "message") {
      for (const part of Array.isArray(item.content) ? item.content : []) {
        if (part?.type === "output_text" && typeof part.text === "string") acc.addText(part.text);
        else if (part?.type === "refusal" && typeof part.refusal === "string") {
          acc.addRefusal(part.refusal);
        }
      }
    } else if (item?.type === "reasoning") {
      // Raw reasoning text when the model exposes it, its summary otherwise.
      const parts: EventData[] = item.content?.length > 0 ? item.content : item.summary ?? [];
      acc.addReasoning(parts.map((part) => part?.text ?? "").join("\n\n"));
    } else if (item?.type === "function_call") {
      const slot = acc.startToolCall(String(item.call_id ?? ""), String(item.name ?? ""));
      if (typeof item.arguments === "string") acc.addToolArguments(slot, item.arguments);
    }
  }
  finish(response, acc);
}

/**
 * The `openai-responses` protocol. It has no continuation: the Responses API has no
 * documented way to make the model continue a partial assistant message.
 *
 * @example
 * ```ts
 * const request = openAIResponses.buildRequest({ baseURL: "https://api.openai.com/v1", apiKey: "sk-…", headers: new Headers(), body: { model: "gpt-5-mini", input: "Hi" } });
 * request.url; // "https://api.openai.com/v1/responses"
 * ```
 */
export const openAIResponses: Protocol = {
  name: "openai-responses",
  buildRequest(target: RequestTarget): ProtocolRequest {
    const headers = bearerHeaders(target);
    const body = JSON.stringify({ ...target.body, stream: true });
    return { url: joinURL(target.baseURL, "/responses"), headers, body };
  },
  createDecoder(acc: Accumulator): StreamDecoder {
    return new ResponsesDecoder(acc);
  },
  toUpstreamError: responsesError,
  decodeMessage,
};
