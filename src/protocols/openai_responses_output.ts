// A Responses answer's items as sent (each `output_item.done` is whole); a cut-off one is patched.

import { citation } from "./output.ts";
import type { Accumulator, OutputAssembler } from "../core/accumulator.ts";
import type { ChatResult, Citation } from "../core/chat_result.ts";
import type { EventData } from "./event_data.ts";

/** Output item types the caller must act on → their `ToolCall.type`. */
export const CALL_KINDS: Record<string, string | undefined> = {
  function_call: "function",
  custom_tool_call: "custom",
  apply_patch_call: "apply_patch",
  shell_call: "shell",
  local_shell_call: "local_shell",
  computer_call: "computer",
  mcp_approval_request: "mcp_approval_request",
};

/** A function's (or MCP approval's) arguments, a custom tool's input, else the action's JSON. */
export function argumentsOf(item: EventData): string {
  if (typeof item?.arguments === "string") return item.arguments;
  if (typeof item?.input === "string") return item.input;
  const action = item?.action ?? item?.actions ?? item?.operation;
  return action === undefined ? "" : JSON.stringify(action);
}

export class ResponsesOutput implements OutputAssembler {
  /** By `output_index`: the item as added, replaced by its `done` version. */
  #items: EventData[] = [];
  #done: boolean[] = [];
  /** By `output_index`: where the item's text starts in `acc.content`. */
  #textFrom: number[] = [];
  #textOrder: number[] = [];
  /** By `output_index`: the tool call's index in `acc.toolCalls` (the decoder's, shared). */
  #slots: ReadonlyArray<number | undefined>;
  /** `response.output` of the final event, for servers that send no item events. */
  #final: EventData[] | undefined = undefined;

  constructor(slots: ReadonlyArray<number | undefined>) {
    this.#slots = slots;
  }

  item(index: number, item: EventData, done: boolean): void {
    if (typeof index !== "number" || item === null || typeof item !== "object") return;
    this.#items[index] = item;
    this.#done[index] = done;
  }

  text(index: number, from: number): void {
    if (typeof index !== "number") return;
    this.#textFrom[index] = from;
    this.#textOrder.push(index);
  }

  hasText(index: number): boolean {
    return this.#textFrom[index] !== undefined;
  }

  final(output: unknown): void {
    if (Array.isArray(output) && output.length > 0) this.#final = output;
  }

  build(acc: Accumulator, result: ChatResult): void {
    const output: EventData[] = [];
    let citations: Citation[] | undefined;
    this.#items.forEach((item, index) => {
      const whole = this.#done[index] ? item : this.#patch(acc, item, index);
      output.push(whole);
      const from = this.#textFrom[index];
      if (from === undefined || whole.type !== "message" || !Array.isArray(whole.content)) return;
      let offset = from;
      for (const part of whole.content) {
        for (const a of Array.isArray(part?.annotations) ? part.annotations : []) {
          const start = a?.start_index ?? a?.index;
          const end = a?.end_index ?? a?.index;
          (citations ??= []).push(
            citation(
              a?.url,
              a?.title ?? a?.filename,
              undefined,
              typeof start === "number" ? offset + start : undefined,
              typeof end === "number" ? offset + end : undefined,
              a,
            ),
          );
        }
        if (typeof part?.text === "string") offset += part.text.length;
      }
    });
    result.output = output.length === 0 && this.#final !== undefined ? this.#final : output;
    if (citations !== undefined) result.citations = citations;
  }

  /** An item cut off before its `done`: what arrived of it, in its own shape. */
  #patch(acc: Accumulator, item: EventData, index: number): EventData {
    const slot = this.#slots[index];
    const call = slot === undefined ? undefined : acc.toolCalls[slot];
    if (call !== undefined) {
      if (item.type === "function_call") return { ...item, arguments: call.arguments };
      if (item.type === "custom_tool_call") return { ...item, input: call.arguments };
      return item;
    }
    const from = this.#textFrom[index];
    if (item.type !== "message" || from === undefined) return item;
    const next = this.#textOrder[this.#textOrder.indexOf(index) + 1];
    // The next item's text starts after the blank line that separates the two.
    const end = next === undefined ? acc.content.length : this.#textFrom[next]! - 2;
    const text = acc.content.slice(from, end);
    return { ...item, content: [{ type: "output_text", text, annotations: [] }] };
  }
}
