// A Responses answer's items as sent (each `output_item.done` is whole); a cut-off one is patched.

import { citation } from "./output.ts";
import type { Accumulator, OutputAssembler } from "../core/accumulator.ts";
import type { ChatResult, Citation } from "../core/chat_result.ts";
import type { EventData } from "./event_data.ts";

export class ResponsesOutput implements OutputAssembler {
  /** By `output_index`: the item as added, replaced by its `done` version. */
  #items: EventData[] = [];
  #done: boolean[] = [];
  /** By `output_index`: where the item's text starts in `acc.content`. */
  #textFrom: number[] = [];
  #textOrder: number[] = [];
  /** By `output_index`: the tool call's index in `acc.toolCalls` (the decoder's, shared). */
  #slots: ReadonlyArray<number | undefined>;
  /** The final response's order of the items, when it holds every streamed one. */
  #order: number[] | undefined = undefined;

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

  at(index: number): EventData {
    return this.#items[index];
  }

  hasText(index: number): boolean {
    return this.#textFrom[index] !== undefined;
  }

  /**
   * The final response's whole items replace streamed ones that got no `done` (OpenAI sends none
   * for some `mcp_list_tools`), and ones never streamed join; matched by `id`, as its positions
   * need not be the stream's. Returns the indexes taken in, and that of the answer's last item.
   */
  settle(output: unknown): { taken: number[]; last: number } | undefined {
    if (!Array.isArray(output) || output.length === 0) return undefined;
    const byId = new Map<unknown, number>();
    this.#items.forEach((item, index) => byId.set(item.id, index));
    const items = (output as EventData[]).filter((item) => typeof item?.id === "string");
    // Only a final output that holds every streamed item says what is missing, and where; one
    // with ids of its own (OpenRouter's) can only complete the items it names.
    const whole = byId.size === this.#items.filter(Boolean).length &&
      [...byId.keys()].every((id) => items.some((item) => item.id === id));
    const taken: number[] = [];
    const order: number[] = [];
    for (const item of items) {
      let index = byId.get(item.id);
      if (index === undefined) {
        if (!whole) continue;
        index = this.#items.length;
      }
      if (this.#done[index] !== true) {
        this.item(index, item, true);
        taken.push(index);
      }
      order.push(index);
    }
    if (whole) this.#order = order;
    return { taken, last: whole ? order[order.length - 1] ?? -1 : this.#items.length - 1 };
  }

  build(acc: Accumulator, result: ChatResult): void {
    const output: EventData[] = [];
    let citations: Citation[] | undefined;
    for (const index of this.#order ?? this.#items.keys()) {
      const item = this.#items[index];
      if (item === undefined) continue;
      const whole = this.#done[index] ? item : this.#patch(acc, item, index);
      output.push(whole);
      const from = this.#textFrom[index];
      if (from === undefined || whole.type !== "message" || !Array.isArray(whole.content)) continue;
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
    }
    result.output = output;
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
