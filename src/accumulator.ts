/**
 * The accumulator assembles one attempt's deltas into a {@linkcode ChatResult} and, when the
 * caller iterates, turns them into events. Protocol decoders call its methods; they never
 * build events themselves, so the result-only path allocates no event objects at all.
 *
 * @module
 */

import type {
  ChatResult,
  FinishReason,
  ReasoningDetail,
  StreamEvent,
  ToolCall,
  Usage,
} from "./types.ts";

/** A signed thinking entry of `reasoningDetails`. */
export type ThinkingDetail = Extract<ReasoningDetail, { type: "thinking" }>;

/** Where events go when the caller iterates. */
export interface EventSink {
  push(event: StreamEvent): void;
}

/**
 * Builds `result.output` (and `result.citations`) once, when the result is made, from the
 * state its protocol decoder kept while streaming: the per-event path only records where
 * things are, never copies them.
 */
export interface OutputAssembler {
  /** Sets `result.output`, and `result.citations` when the answer cites sources. */
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
  /** Signed and redacted reasoning blocks; stays `undefined` unless a protocol opens one. */
  reasoningDetails: ReasoningDetail[] | undefined = undefined;
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
  /** The thinking entry reasoning text and signature go to while its block is open. */
  #thinking: ThinkingDetail | undefined = undefined;

  constructor(sink: EventSink | null, previous?: Accumulator) {
    this.sink = sink;
    this.previousOutput = previous?.output;
    if (previous) {
      // A continuation keeps what was already delivered and appends to it.
      this.id = previous.id;
      this.model = previous.model;
      this.content = previous.content;
      this.reasoning = previous.reasoning;
      // The blocks stay in order; none is open: a new attempt starts its own.
      if (previous.reasoningDetails !== undefined) {
        this.reasoningDetails = previous.reasoningDetails.slice();
      }
      this.refusal = previous.refusal;
      this.continuedFrom = previous.content.length;
      this.resumes = previous.resumes;
    }
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
    if (this.#thinking !== undefined) this.#thinking.thinking += text;
    this.delivered = true;
    this.lastKind = "reasoning";
    if (this.sink !== null) this.sink.push({ type: "reasoning", text });
  }

  /**
   * Opens a signed thinking entry in `reasoningDetails`: until {@linkcode endReasoningBlock},
   * `addReasoning` text and `addReasoningSignature` fragments go to it as well.
   */
  startReasoningBlock(): ThinkingDetail {
    const entry: ThinkingDetail = { type: "thinking", thinking: "", signature: "" };
    this.#thinking = entry;
    this.#addDetail(entry);
    return entry;
  }

  /** Appends to the open thinking entry's signature (ignored when no entry is open). */
  addReasoningSignature(signature: string): void {
    if (this.#thinking !== undefined) this.#thinking.signature += signature;
  }

  /** Closes the open thinking entry, if any: later reasoning text is not part of it. */
  endReasoningBlock(): void {
    this.#thinking = undefined;
  }

  /** Adds an opaque redacted reasoning block (closing any open thinking entry). */
  addRedactedReasoning(data: string): void {
    this.#thinking = undefined;
    this.#addDetail({ type: "redacted_thinking", data });
  }

  #addDetail(entry: ReasoningDetail): void {
    if (this.reasoningDetails === undefined) this.reasoningDetails = [entry];
    else this.reasoningDetails.push(entry);
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
    if (this.reasoningDetails !== undefined && this.reasoningDetails.length > 0) {
      result.reasoningDetails = this.reasoningDetails;
    }
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
