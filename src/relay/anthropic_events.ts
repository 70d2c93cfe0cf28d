// The answer as Anthropic Messages SSE (`message_start`, content blocks, `message_delta`,
// `message_stop`), or as one `message` object, from the client's events and result.

import type { ChatResult, FinishReason, Usage } from "../core/chat_result.ts";
import { InboundEncoder } from "./answer_encoder.ts";
import type { RelayEvent } from "./chunks.ts";
import type { RelayFailure } from "./error_response.ts";
import { KEEP_ALIVE } from "./keep_alive.ts";

type Json = Record<string, unknown>;

const PING = 'event: ping\ndata: {"type":"ping"}\n\n';
const STOP = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';

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

/** Anthropic's error `type` for an HTTP status. */
export function anthropicErrorType(status: number): string {
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

/** One content block at a time, as Anthropic streams them; the caller's tool calls only. */
export class AnthropicEncoder extends InboundEncoder {
  readonly done = "";
  readonly #id: string;
  readonly #model: string;
  /** The open block's kind, and the index the next block gets. */
  #open: "text" | "thinking" | "tool_use" | undefined = undefined;
  #next = 0;
  /** By the client's tool call index: its block's index, or -1 for a call the provider ran. */
  #blocks: number[] = [];

  constructor(id: string, model: string) {
    super();
    this.#id = id;
    this.#model = model;
  }

  fail(failure: RelayFailure): string {
    return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(failure))}\n\n`;
  }

  override keepAlive(): string {
    return this.started ? PING : KEEP_ALIVE;
  }

  protected translate(event: RelayEvent): string {
    switch (event.type) {
      case "text":
        return this.#block("text", { type: "text", text: "" }) +
          this.#delta(this.#next - 1, `{"type":"text_delta","text":${JSON.stringify(event.text)}}`);
      case "reasoning":
        return this.#block("thinking", { type: "thinking", thinking: "", signature: "" }) +
          this.#delta(
            this.#next - 1,
            `{"type":"thinking_delta","thinking":${JSON.stringify(event.text)}}`,
          );
      case "tool-call": {
        if (event.providerExecuted === true) {
          this.#blocks[event.index] = -1;
          return "";
        }
        const block = {
          type: "tool_use",
          id: event.id,
          name: event.name || event.toolType,
          input: {},
        };
        const text = this.#block("tool_use", block, true);
        this.#blocks[event.index] = this.#next - 1;
        return text;
      }
      case "tool-call-delta": {
        const index = this.#blocks[event.index] ?? -1;
        if (index < 0) return "";
        const json = JSON.stringify(event.argumentsDelta);
        return this.#delta(index, `{"type":"input_json_delta","partial_json":${json}}`);
      }
      case "finish":
        return this.#finish(event.result);
      default:
        return "";
    }
  }

  #start(): string {
    if (this.started) return "";
    this.started = true;
    const message = {
      id: this.#id,
      type: "message",
      role: "assistant",
      model: this.#model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return sse("message_start", { type: "message_start", message });
  }

  /** Opens a block of `kind` unless one is open (a new tool call always opens one). */
  #block(kind: "text" | "thinking" | "tool_use", block: Json, always = false): string {
    if (this.#open === kind && !always) return "";
    const text = this.#start() + this.#close();
    this.#open = kind;
    const index = this.#next++;
    return text +
      sse("content_block_start", { type: "content_block_start", index, content_block: block });
  }

  #close(): string {
    if (this.#open === undefined) return "";
    this.#open = undefined;
    return sse("content_block_stop", { type: "content_block_stop", index: this.#next - 1 });
  }

  #delta(index: number, delta: string): string {
    return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":${delta}}\n\n`;
  }

  #finish(result: ChatResult): string {
    let text = "";
    // A refusal has no event of its own: what the client decoded goes out whole.
    if (result.refusal !== undefined) {
      text += this.#block("text", { type: "text", text: "" }) +
        this.#delta(
          this.#next - 1,
          `{"type":"text_delta","text":${JSON.stringify(result.refusal)}}`,
        );
    }
    text = this.#start() + text + this.#close();
    const delta = { stop_reason: stopReason(result), stop_sequence: null };
    text += sse("message_delta", {
      type: "message_delta",
      delta,
      usage: anthropicUsage(result.usage),
    });
    return text + STOP;
  }
}

/** A `stream: false` answer: the upstream's own blocks when it spoke Anthropic Messages. */
export function toAnthropicMessage(result: ChatResult, id: string, model: string): Json {
  const own = result.target?.protocol === "anthropic-messages" && Array.isArray(result.output);
  return {
    id: result.id || id,
    type: "message",
    role: "assistant",
    model: result.model || model,
    content: own ? result.output : contentOf(result),
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
  if (text !== "") content.push({ type: "text", text });
  for (const call of result.toolCalls) {
    if (call.providerExecuted === true) continue;
    content.push({
      type: "tool_use",
      id: call.id,
      name: call.name || call.type,
      input: parseInput(call.arguments),
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

function sse(event: string, data: Json): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
