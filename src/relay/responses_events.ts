// The answer as OpenAI Responses SSE (`response.created`, output items and their deltas, then
// `response.completed`, `.incomplete` or `.failed`); responses_whole.ts's `stream: false` too.

import type { ChatResult, Citation } from "../core/chat_result.ts";
import { InboundEncoder, type ToolCallEvent } from "./answer_encoder.ts";
import type { RelayFailure } from "./error_response.ts";
import {
  ending,
  type Item,
  itemJson,
  responseShell,
  responsesUsage,
  urlCitations,
} from "./responses_shapes.ts";

type Json = Record<string, unknown>;

const TEXT_DELTA = "response.output_text.delta";
const SUMMARY_DELTA = "response.reasoning_summary_text.delta";
const ARGUMENTS_DELTA = "response.function_call_arguments.delta";

export class ResponsesEncoder extends InboundEncoder {
  readonly #createdAt = Math.floor(Date.now() / 1000);
  #seq = 0;
  #items: Item[] = [];
  #open: Item | undefined = undefined;

  /** `sequence` numbers the first event (a resumed stream's go on from the stored ones). */
  constructor(id: string, model: string, sequence = 0) {
    super(id, model);
    this.#seq = sequence;
  }

  fail(failure: RelayFailure): string {
    // `response.failed`, then `error` with an `error` object: openai SDKs throw on that, where
    // `response.failed` alone hands `finalResponse()` an `in_progress` snapshot as the answer.
    const code = failure.code ?? failure.type;
    const error = { code, message: failure.message };
    const response = { ...this.#response("failed"), error };
    return this.#sse("response.failed", { response }) +
      this.#sse("error", {
        ...error,
        param: null,
        error: { type: failure.type, code, message: failure.message, param: null },
      });
  }

  protected opening(): string {
    return this.#sse("response.created", { response: this.#response("in_progress") });
  }

  protected text(text: string): string {
    return this.#text("message", text);
  }

  protected reasoning(text: string): string {
    return this.#text("reasoning", text);
  }

  protected toolCall(event: ToolCallEvent): string {
    const text = this.start() + this.#close();
    const item: Item = {
      kind: "function_call",
      id: `fc_${this.id.slice(5)}_${this.#items.length}`,
      text: "",
      callId: event.id,
      name: event.name || (event.toolType ?? ""),
    };
    this.wroteCall(event.index, this.#items.length);
    return text + this.#add(item);
  }

  protected toolCallDelta(at: number, delta: string): string {
    const item = this.#items[at];
    if (item === undefined) return "";
    item.text += delta;
    return this.#delta(ARGUMENTS_DELTA, item, delta);
  }

  #text(kind: "message" | "reasoning", delta: string): string {
    const text = this.#open?.kind === kind ? "" : this.#begin(kind);
    const item = this.#open!;
    item.text += delta;
    return text + this.#delta(kind === "message" ? TEXT_DELTA : SUMMARY_DELTA, item, delta);
  }

  #begin(kind: "message" | "reasoning"): string {
    return this.start() + this.#close() + this.#add({
      kind,
      id: `${kind === "message" ? "msg" : "rs"}_${this.id.slice(5)}_${this.#items.length}`,
      text: "",
      callId: "",
      name: "",
    });
  }

  /** Citations come with the whole answer only: on the open message item, else on a new one. */
  cite(citations: Citation[] | undefined): string {
    const open = this.#open?.kind === "message" ? this.#open : undefined;
    let from = 0;
    for (const item of this.#items) {
      if (item.kind === "message" && item !== open) from += item.text.length;
    }
    const annotations = urlCitations(citations, from, open?.text.length ?? 0);
    if (annotations === undefined) return "";
    let text = open === undefined ? this.#begin("message") : "";
    const item = this.#open!;
    item.annotations = annotations;
    const where = { item_id: item.id, output_index: this.#items.length - 1, content_index: 0 };
    for (let i = 0; i < annotations.length; i++) {
      const added = { ...where, annotation_index: i, annotation: annotations[i] };
      text += this.#sse("response.output_text.annotation.added", added);
    }
    return text;
  }

  /** A delta event, written without building its object: one per token. */
  #delta(type: string, item: Item, delta: string): string {
    const where = item.where ??= `,"item_id":${JSON.stringify(item.id)},"output_index":${
      this.#items.indexOf(item)
    }`;
    const tail = type === TEXT_DELTA
      ? ',"content_index":0,"delta":'
      : type === SUMMARY_DELTA
      ? ',"summary_index":0,"delta":'
      : ',"delta":';
    const end = type === TEXT_DELTA ? ',"logprobs":[]}\n\n' : "}\n\n";
    return `event: ${type}\ndata: {"type":"${type}","sequence_number":${this
      .#seq++}${where}${tail}${JSON.stringify(delta)}${end}`;
  }

  #add(item: Item): string {
    const output_index = this.#items.length;
    this.#items.push(item);
    this.#open = item;
    const added = { output_index, item: itemJson(item, "in_progress", true) };
    let text = this.#sse("response.output_item.added", added);
    const where = { item_id: item.id, output_index };
    if (item.kind === "message") {
      const part = { type: "output_text", text: "", annotations: [] };
      text += this.#sse("response.content_part.added", { ...where, content_index: 0, part });
    } else if (item.kind === "reasoning") {
      const part = { type: "summary_text", text: "" };
      const at = { ...where, summary_index: 0 };
      text += this.#sse("response.reasoning_summary_part.added", { ...at, part });
    }
    return text;
  }

  #close(): string {
    const item = this.#open;
    if (item === undefined) return "";
    this.#open = undefined;
    const where = { item_id: item.id, output_index: this.#items.indexOf(item) };
    let text: string;
    if (item.kind === "message") {
      const part = { type: "output_text", text: item.text, annotations: item.annotations ?? [] };
      const at = { ...where, content_index: 0 };
      text = this.#sse("response.output_text.done", { ...at, text: item.text, logprobs: [] }) +
        this.#sse("response.content_part.done", { ...at, part });
    } else if (item.kind === "reasoning") {
      const part = { type: "summary_text", text: item.text };
      const at = { ...where, summary_index: 0 };
      text = this.#sse("response.reasoning_summary_text.done", { ...at, text: item.text }) +
        this.#sse("response.reasoning_summary_part.done", { ...at, part });
    } else {
      text = this.#sse("response.function_call_arguments.done", { ...where, arguments: item.text });
    }
    const done = { output_index: where.output_index, item: itemJson(item, "completed", false) };
    return text + this.#sse("response.output_item.done", done);
  }

  protected finish(result: ChatResult): string {
    let text = this.start();
    if (result.refusal !== undefined) text += this.#text("message", result.refusal);
    text += this.cite(result.citations);
    // Calls still open (parallel calls) are closed in order.
    text += this.#close();
    const end = ending(result);
    const response = {
      ...this.#response(String(end.status)),
      ...end,
      output: this.items(),
      usage: responsesUsage(result.usage),
    };
    const type = end.status === "completed" ? "response.completed" : "response.incomplete";
    return text + this.#sse(type, { response });
  }

  /** The output items written so far, as a finished response lists them. */
  items(): Json[] {
    return this.#items.map((item) => itemJson(item, "completed", false));
  }

  #response(status: string): Json {
    return responseShell(this.id, this.model, this.#createdAt, status);
  }

  #sse(type: string, fields: Json): string {
    const data = JSON.stringify({ type, sequence_number: this.#seq++, ...fields });
    return `event: ${type}\ndata: ${data}\n\n`;
  }
}
