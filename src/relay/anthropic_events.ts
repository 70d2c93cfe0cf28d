// The answer as Anthropic Messages SSE (`message_start`, content blocks, `message_delta`,
// `message_stop`), or as one `message` object, from the client's events and result.

import type { ChatResult } from "../core/chat_result.ts";
import { InboundEncoder, type ToolCallEvent } from "./answer_encoder.ts";
import type { RelayFailure } from "./error_response.ts";
import { KEEP_ALIVE } from "./keep_alive.ts";
import {
  anthropicCitations,
  anthropicErrorBody,
  anthropicUsage,
  stopReason,
} from "./anthropic_shapes.ts";

type Json = Record<string, unknown>;

const PING = 'event: ping\ndata: {"type":"ping"}\n\n';
const STOP = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';

function partialJson(json: string): string {
  return `{"type":"input_json_delta","partial_json":${JSON.stringify(json)}}`;
}

const INPUT_OPEN = partialJson('{"input":"');
const INPUT_CLOSE = partialJson('"}');

/** Built once: `#block` gets one for every text or reasoning event, and mostly ignores it. */
const TEXT_BLOCK: Json = { type: "text", text: "" };
const THINKING_BLOCK: Json = { type: "thinking", thinking: "", signature: "" };

/** One content block at a time, as Anthropic streams them; the caller's tool calls only. */
export class AnthropicEncoder extends InboundEncoder {
  /** The open block's kind, and the index the next block gets. */
  #open: "text" | "thinking" | "tool_use" | undefined = undefined;
  #next = 0;
  /** The open block is a custom tool's call: its free text goes out as `{"input": "<text>"}`. */
  #custom = false;

  fail(failure: RelayFailure): string {
    return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(failure))}\n\n`;
  }

  override keepAlive(): string {
    return this.started ? PING : KEEP_ALIVE;
  }

  protected opening(): string {
    const message = {
      id: this.id,
      type: "message",
      role: "assistant",
      model: this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return sse("message_start", { message });
  }

  protected text(text: string): string {
    return this.#block("text", TEXT_BLOCK) +
      this.#delta(this.#next - 1, `{"type":"text_delta","text":${JSON.stringify(text)}}`);
  }

  protected reasoning(text: string): string {
    return this.#block("thinking", THINKING_BLOCK) +
      this.#delta(this.#next - 1, `{"type":"thinking_delta","thinking":${JSON.stringify(text)}}`);
  }

  protected toolCall(event: ToolCallEvent): string {
    const block = { type: "tool_use", id: event.id, name: event.name || event.toolType, input: {} };
    let text = this.#block("tool_use", block, true);
    this.wroteCall(event.index, this.#next - 1);
    if (event.toolType === "custom") {
      this.#custom = true;
      text += this.#delta(this.#next - 1, INPUT_OPEN);
    }
    return text;
  }

  protected toolCallDelta(at: number, delta: string): string {
    // A custom tool's text, escaped piece by piece: the pieces' escapes join up.
    const part = this.#custom && at === this.#next - 1 ? JSON.stringify(delta).slice(1, -1) : delta;
    return this.#delta(at, partialJson(part));
  }

  /** Opens a block of `kind` unless one is open (a new tool call always opens one). */
  #block(kind: "text" | "thinking" | "tool_use", block: Json, always = false): string {
    if (this.#open === kind && !always) return "";
    const text = this.start() + this.#close();
    this.#open = kind;
    const index = this.#next++;
    return text + sse("content_block_start", { index, content_block: block });
  }

  #close(): string {
    if (this.#open === undefined) return "";
    this.#open = undefined;
    const end = this.#custom ? this.#delta(this.#next - 1, INPUT_CLOSE) : "";
    this.#custom = false;
    return end + sse("content_block_stop", { index: this.#next - 1 });
  }

  #delta(index: number, delta: string): string {
    return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":${delta}}\n\n`;
  }

  /** Citations come with the whole answer only: on the open text block, else on a new one. */
  #cite(result: ChatResult): string {
    const citations = anthropicCitations(result.citations);
    if (citations === undefined) return "";
    let text = this.#block("text", TEXT_BLOCK);
    for (const citation of citations) {
      text += this.#delta(
        this.#next - 1,
        `{"type":"citations_delta","citation":${JSON.stringify(citation)}}`,
      );
    }
    return text;
  }

  protected finish(result: ChatResult): string {
    let text = this.start();
    // A refusal has no event of its own: what the client decoded goes out whole.
    if (result.refusal !== undefined) text += this.text(result.refusal);
    text += this.#cite(result);
    text += this.#close();
    const delta = { stop_reason: stopReason(result), stop_sequence: null };
    text += sse("message_delta", { delta, usage: anthropicUsage(result.usage) });
    return text + STOP;
  }
}

/** An event whose data's `type` is its name, as all of Anthropic's are. */
function sse(type: string, fields: Json): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
}
