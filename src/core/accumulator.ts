// Decoders call the accumulator and never build events themselves, so the result-only path
// allocates no event objects at all.

import type { ChatResult, FinishReason, StreamEvent, ToolCall, Usage } from "./chat_result.ts";

export interface EventSink {
  push(event: StreamEvent): void;
}

/** Builds `result.output` once, at the end: the per-event path only records where things are. */
export interface OutputAssembler {
  build(acc: Accumulator, result: ChatResult): void;
}

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
  /** Output reached the caller, so this attempt must not be retried. */
  delivered = false;
  /** Decides whether a cut-off answer can be continued. */
  lastKind: "text" | "reasoning" | "tool" | undefined = undefined;
  /** Text inherited from the attempts it continues (`onPartial: "continue"`). */
  continuedFrom = 0;
  resumes = 0;
  /** `null` when nobody iterates: then no event object is ever allocated. */
  readonly sink: EventSink | null;
  output: OutputAssembler | undefined = undefined;
  readonly previousOutput: OutputAssembler | undefined;

  constructor(sink: EventSink | null, previous?: Accumulator) {
    this.sink = sink;
    this.previousOutput = previous?.output;
    if (previous) {
      this.id = previous.id;
      this.model = previous.model;
      this.content = previous.content;
      this.reasoning = previous.reasoning;
      this.refusal = previous.refusal;
      this.continuedFrom = previous.content.length;
      this.resumes = previous.resumes;
    }
  }

  identify(from: { id?: unknown; model?: unknown } | null | undefined): void {
    if (this.id === "" && typeof from?.id === "string") this.id = from.id;
    if (this.model === "" && typeof from?.model === "string") this.model = from.model;
  }

  addText(text: string): void {
    if (text.length === 0) return;
    this.content += text;
    this.delivered = true;
    this.lastKind = "text";
    if (this.sink !== null) this.sink.push({ type: "text", text });
  }

  addReasoning(text: string): void {
    if (text.length === 0) return;
    this.reasoning += text;
    this.delivered = true;
    this.lastKind = "reasoning";
    if (this.sink !== null) this.sink.push({ type: "reasoning", text });
  }

  addRefusal(text: string): void {
    if (text.length === 0) return;
    this.refusal = this.refusal === undefined ? text : this.refusal + text;
  }

  startToolCall(
    id: string,
    name: string,
    extra?: unknown,
    type?: string,
    providerExecuted?: boolean,
  ): number {
    const index = this.toolCalls.length;
    const call: ToolCall = { index, id, name, arguments: "" };
    if (type !== undefined && type !== "function") call.type = type;
    if (extra !== undefined) call.extra = extra;
    if (providerExecuted === true) call.providerExecuted = true;
    this.toolCalls.push(call);
    this.delivered = true;
    this.lastKind = "tool";
    if (this.sink !== null) {
      const event: StreamEvent = { type: "tool-call", index, id, name };
      if (call.type !== undefined) event.toolType = call.type;
      if (call.providerExecuted) event.providerExecuted = true;
      this.sink.push(event);
    }
    return index;
  }

  addToolArguments(index: number, fragment: string): void {
    const call = this.toolCalls[index];
    if (call === undefined || fragment.length === 0) return;
    call.arguments += fragment;
    this.lastKind = "tool";
    if (this.sink !== null) {
      this.sink.push({ type: "tool-call-delta", index, argumentsDelta: fragment });
    }
  }

  setUsage(usage: Usage): void {
    this.usage = usage;
    if (this.sink !== null) this.sink.push({ type: "usage", usage });
  }

  /** Anything outside the five shared values becomes `stop`. */
  setFinish(finishReason: string, providerFinishReason?: string): void {
    this.finishReason = NORMALISED.has(finishReason) ? finishReason as FinishReason : "stop";
    if (providerFinishReason !== undefined) this.providerFinishReason = providerFinishReason;
  }

  /** Arguments that are not JSON mean the output was cut short (custom tools aside). */
  toResult(attempts: number): ChatResult {
    let finishReason: FinishReason = this.finishReason ?? "stop";
    let callersCall = false;
    for (const call of this.toolCalls) {
      if (call.providerExecuted !== true) callersCall = true;
      if (call.type !== "custom" && call.arguments.length > 0 && !isJSON(call.arguments)) {
        finishReason = "length";
      }
    }
    if (finishReason === "tool_calls" && !callersCall) finishReason = "stop";
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
