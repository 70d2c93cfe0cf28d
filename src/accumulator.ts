/**
 * The accumulator assembles one attempt's deltas into a {@linkcode ChatResult} and, when the
 * caller iterates, turns them into events. Protocol decoders call its methods; they never
 * build events themselves, so the result-only path allocates no event objects at all.
 *
 * @module
 */

import type { ChatResult, FinishReason, StreamEvent, ToolCall, Usage } from "./chat_result.ts";

/** Where events go when the caller iterates. */
export interface EventSink {
  push(event: StreamEvent): void;
}

/**
 * Builds `result.output` (and what is derived from it: `citations`, `reasoningDetails`) once,
 * when the result is made, from the state its protocol decoder kept while streaming: the
 * per-event path only records where things are, never copies them.
 */
export interface OutputAssembler {
  /**
   * Sets `result.output`, `result.citations` when the answer cites sources, and
   * `result.reasoningDetails` when it has signed or redacted reasoning blocks.
   */
  build(acc: Accumulator, result: ChatResult): void;
}

/**
 * Per-attempt assembly state shared by every protocol decoder.
 *
 * @example
 * ```ts
 * const acc = new Accumulator(null);
 * acc.addText("Hel"); acc.addText("lo");
 * acc.content; // "Hello"
 * ```
 */
export class Accumulator {
  id = "";
  model = "";
  content = "";
  reasoning = "";
  refusal: string | undefined = undefined;
  toolCalls: ToolCall[] = [];
  finishReason: FinishReason | undefined = undefined;
  providerFinishReason: string | undefined = undefined;
  usage: Usage | undefined = undefined;
  /** Whether this attempt produced text, reasoning or a tool call (so it must not be retried). */
  delivered = false;
  /** The kind of the last delta delivered; decides whether a cut-off answer can be continued. */
  lastKind: "text" | "reasoning" | "tool" | undefined = undefined;
  /** Text this attempt inherited from the attempts it continues (`onPartial: "continue"`). */
  continuedFrom = 0;
  /** How many times this answer's stream was resumed on a new connection (resume.ts). */
  resumes = 0;
  /** `null` when nobody iterates: then no event object is ever allocated. */
  readonly sink: EventSink | null;
  /** Set by the protocol decoder: assembles `result.output` at the end. */
  output: OutputAssembler | undefined = undefined;
  /** The assembler of the attempt this one continues (`onPartial: "continue"`). */
  readonly previousOutput: OutputAssembler | undefined;

  constructor(sink: EventSink | null, previous?: Accumulator) {
    this.sink = sink;
    this.previousOutput = previous?.output;
    if (previous) {
      // A continuation keeps what was already delivered and appends to it.
      this.id = previous.id;
      this.model = previous.model;
      this.content = previous.content;
      this.reasoning = previous.reasoning;
      this.refusal = previous.refusal;
      this.continuedFrom = previous.content.length;
      this.resumes = previous.resumes;
    }
  }

  /** Takes `id` and `model` from the first chunk, message or response that has them. */
  identify(from: { id?: unknown; model?: unknown } | null | undefined): void {
    if (this.id === "" && typeof from?.id === "string") this.id = from.id;
    if (this.model === "" && typeof from?.model === "string") this.model = from.model;
  }

  /** Appends answer text. */
  addText(text: string): void {
    if (text.length === 0) return;
    this.content += text;
    this.delivered = true;
    this.lastKind = "text";
    if (this.sink !== null) this.sink.push({ type: "text", text });
  }

  /** Appends reasoning ("thinking") text. */
  addReasoning(text: string): void {
    if (text.length === 0) return;
    this.reasoning += text;
    this.delivered = true;
    this.lastKind = "reasoning";
    if (this.sink !== null) this.sink.push({ type: "reasoning", text });
  }

  /** Appends refusal text (OpenAI `delta.refusal`). */
  addRefusal(text: string): void {
    if (text.length === 0) return;
    this.refusal = this.refusal === undefined ? text : this.refusal + text;
  }

  /**
   * Starts a tool call and returns its index in `toolCalls`. `type` is the call's kind when
   * it is not a function call (`"custom"`, `"apply_patch"`…).
   */
  startToolCall(id: string, name: string, extra?: unknown, type?: string): number {
    const index = this.toolCalls.length;
    const call: ToolCall = { index, id, name, arguments: "" };
    if (type !== undefined && type !== "function") call.type = type;
    if (extra !== undefined) call.extra = extra;
    this.toolCalls.push(call);
    this.delivered = true;
    this.lastKind = "tool";
    if (this.sink !== null) {
      this.sink.push(
        call.type === undefined
          ? { type: "tool-call", index, id, name }
          : { type: "tool-call", index, id, name, toolType: call.type },
      );
    }
    return index;
  }

  /** Appends a fragment of a tool call's JSON arguments. */
  addToolArguments(index: number, fragment: string): void {
    const call = this.toolCalls[index];
    if (call === undefined || fragment.length === 0) return;
    call.arguments += fragment;
    this.lastKind = "tool";
    if (this.sink !== null) {
      this.sink.push({ type: "tool-call-delta", index, argumentsDelta: fragment });
    }
  }

  /** Records usage and emits a `usage` event. */
  setUsage(usage: Usage): void {
    this.usage = usage;
    if (this.sink !== null) this.sink.push({ type: "usage", usage });
  }

  /**
   * Records the finish reason: normalised (anything outside the five shared values becomes
   * `stop`), and the provider's own value when it sent one.
   */
  setFinish(finishReason: string, providerFinishReason?: string): void {
    this.finishReason = NORMALISED.has(finishReason) ? finishReason as FinishReason : "stop";
    if (providerFinishReason !== undefined) this.providerFinishReason = providerFinishReason;
  }

  /**
   * Builds the result. A tool call whose non-empty arguments are not valid JSON means the
   * output was cut short, whatever the provider said (a custom tool's input is free text).
   */
  toResult(attempts: number): ChatResult {
    let finishReason: FinishReason = this.finishReason ?? "stop";
    for (const call of this.toolCalls) {
      if (call.type !== "custom" && call.arguments.length > 0 && !isJSON(call.arguments)) {
        finishReason = "length";
      }
    }
    const result: ChatResult = {
      id: this.id,
      model: this.model,
      content: this.content,
      reasoning: this.reasoning,
      toolCalls: this.toolCalls,
      finishReason,
      attempts,
    };
    if (this.refusal !== undefined) result.refusal = this.refusal;
    if (this.providerFinishReason !== undefined) {
      result.providerFinishReason = this.providerFinishReason;
    }
    if (this.usage !== undefined) result.usage = this.usage;
    if (this.resumes > 0) result.resumes = this.resumes;
    if (this.output !== undefined) this.output.build(this, result);
    return result;
  }
}

const NORMALISED = new Set<string>(["stop", "length", "tool_calls", "content_filter", "error"]);

function isJSON(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
