// The assistant message of an Anthropic answer: every block in order, to send back unchanged.

import { citation, mergeDelta, parseOr } from "./output.ts";
import type { Accumulator, OutputAssembler } from "../core/accumulator.ts";
import type { ChatResult, Citation, ReasoningDetail } from "../core/chat_result.ts";
import type { EventData } from "./event_data.ts";

/** Kinds of block, by where their content is kept while streaming. */
const TEXT = 0;
const THINKING = 1;
const TOOL = 2;
/** A block with an `input` streamed as JSON that is not the caller's to run (server tools). */
const INPUT = 3;
const OTHER = 4;

const KINDS = new Map<unknown, number>([
  ["text", TEXT],
  ["thinking", THINKING],
  ["tool_use", TOOL],
  ["server_tool_use", INPUT],
  ["mcp_tool_use", INPUT],
]);

interface BlockRecord {
  block: EventData;
  kind: number;
  /** TEXT / THINKING: where the block's text starts in `acc.content` / `acc.reasoning`. */
  from: number;
  /** … and where it ends; -1 while the block is open. */
  to: number;
  /** TOOL: the call's index in `acc.toolCalls`. */
  slot: number;
  /** INPUT: the streamed JSON; THINKING: the streamed signature. */
  tail: string;
}

export class AnthropicOutput implements OutputAssembler {
  #records: BlockRecord[];
  #byIndex: Array<BlockRecord | undefined> = [];
  /** The blocks of a cut-off answer this attempt continues: its first text block extends them. */
  #carried: boolean;

  constructor(previous: OutputAssembler | undefined) {
    this.#records = previous instanceof AnthropicOutput ? previous.#records.slice() : [];
    this.#carried = this.#records.length > 0;
  }

  /** A block starts: call before the accumulator gets its text, so `from` is right. */
  open(index: number, block: EventData, acc: Accumulator): void {
    const kind = KINDS.get(block?.type) ?? OTHER;
    const last = this.#records[this.#records.length - 1];
    if (this.#carried && kind === TEXT && last?.kind === TEXT) {
      // A continuation's text goes on the cut-off text block: one block, as if never cut.
      this.#carried = false;
      last.to = -1;
      this.#byIndex[index] = last;
      return;
    }
    this.#carried = false;
    const record: BlockRecord = {
      block: block !== null && typeof block === "object" ? block : { type: String(block) },
      kind,
      from: kind === THINKING ? acc.reasoning.length : acc.content.length,
      to: -1,
      slot: -1,
      tail: "",
    };
    this.#records.push(record);
    this.#byIndex[index] = record;
  }

  slot(index: number, slot: number): void {
    const record = this.#byIndex[index];
    if (record !== undefined) record.slot = slot;
  }

  /** A delta the accumulator does not keep: server tool input, signatures, citations, new kinds. */
  delta(index: number, delta: EventData): void {
    const record = this.#byIndex[index];
    if (record === undefined) return;
    switch (delta?.type) {
      case "input_json_delta":
        if (typeof delta.partial_json === "string") record.tail += delta.partial_json;
        break;
      case "signature_delta":
        if (typeof delta.signature === "string") record.tail += delta.signature;
        break;
      case "citations_delta": {
        const block = record.block;
        if (Array.isArray(block.citations)) block.citations.push(delta.citation);
        else block.citations = [delta.citation];
        break;
      }
      default:
        mergeDelta(record.block, delta);
    }
  }

  close(index: number, acc: Accumulator): void {
    const record = this.#byIndex[index];
    if (record === undefined || record.to !== -1) return;
    record.to = record.kind === THINKING ? acc.reasoning.length : acc.content.length;
  }

  build(acc: Accumulator, result: ChatResult): void {
    const content: EventData[] = [];
    let citations: Citation[] | undefined;
    let details: ReasoningDetail[] | undefined;
    for (const record of this.#records) {
      const { block, kind } = record;
      if (kind === TEXT) {
        const end = record.to === -1 ? acc.content.length : record.to;
        content.push({ ...block, text: acc.content.slice(record.from, end) });
        if (Array.isArray(block.citations)) {
          for (const c of block.citations) {
            (citations ??= []).push(
              citation(
                c?.url ?? (c?.type === "search_result_location" ? c.source : undefined),
                c?.title ?? c?.document_title,
                c?.cited_text,
                record.from,
                end,
                c,
              ),
            );
          }
        }
      } else if (kind === THINKING) {
        const end = record.to === -1 ? acc.reasoning.length : record.to;
        const thinking = acc.reasoning.slice(record.from, end);
        const signature = (typeof block.signature === "string" ? block.signature : "") +
          record.tail;
        content.push({ ...block, thinking, signature });
        (details ??= []).push({ type: "thinking", thinking, signature });
      } else if (kind === TOOL) {
        const args = acc.toolCalls[record.slot]?.arguments ?? "";
        content.push({ ...block, input: parseOr(args, block.input ?? {}) });
      } else if (kind === INPUT && record.tail !== "") {
        content.push({ ...block, input: parseOr(record.tail, block.input ?? {}) });
      } else {
        content.push(block);
        if (block.type === "redacted_thinking") {
          const data = typeof block.data === "string" ? block.data : "";
          (details ??= []).push({ type: "redacted_thinking", data });
        }
      }
    }
    result.output = { role: "assistant", content };
    if (citations !== undefined) result.citations = citations;
    if (details !== undefined) result.reasoningDetails = details;
  }
}
