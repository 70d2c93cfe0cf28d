// The assistant message of an OpenAI-compatible answer, with the extras a caller must send back.

import type { Accumulator, OutputAssembler } from "../core/accumulator.ts";
import type { AssistantMessage, ChatResult, Citation } from "../core/chat_result.ts";
import type { EventData } from "./event_data.ts";
import { citation } from "./output.ts";

export class ChatMessageOutput implements OutputAssembler {
  reasoningField: string | undefined = undefined;
  /** Set only when the provider sent `content` as an array (Mistral). */
  parts: EventData[] | undefined = undefined;
  #annotations: EventData[] | undefined = undefined;
  #details: EventData[] | undefined = undefined;
  /** The latest detail at each `index`: where its next fragment goes, without a search. */
  #detailAt = new Map<number, EventData>();
  /** Perplexity's top-level `citations` and `search_results`: each chunk repeats them. */
  #sources: EventData[] | undefined = undefined;
  #searchResults: EventData[] | undefined = undefined;
  whole: AssistantMessage | undefined = undefined;
  /** The call came as the legacy `function_call`: the output sends it back so. */
  legacy = false;

  constructor(previous: OutputAssembler | undefined) {
    if (previous instanceof ChatMessageOutput) {
      this.reasoningField = previous.reasoningField;
      this.legacy = previous.legacy;
      this.parts = previous.parts?.map((part) => ({ ...part }));
      this.#annotations = previous.#annotations?.slice();
      // Each detail again, as a fragment of its own: copied, and found by its index.
      this.details(previous.#details);
      this.#sources = previous.#sources;
      this.#searchResults = previous.#searchResults;
    }
  }

  /** Its text is already in the accumulator; runs of a kind merge. */
  part(part: EventData, text: string): void {
    const parts = this.parts ??= [];
    const last = parts[parts.length - 1];
    if (last !== undefined && last.type === part?.type) {
      if (last.type === "text") {
        last.text += text;
        return;
      }
      if (last.type === "thinking") {
        last.thinking[0].text += text;
        return;
      }
    }
    if (part?.type === "text") parts.push({ ...part, text });
    else if (part?.type === "thinking") parts.push({ ...part, thinking: [{ type: "text", text }] });
    else parts.push(part);
  }

  annotate(annotations: unknown): void {
    if (Array.isArray(annotations)) (this.#annotations ??= []).push(...annotations);
  }

  /** Merged by `index` and `type` as OpenRouter streams them; text-like fields concatenate. */
  details(fragments: unknown): void {
    if (!Array.isArray(fragments)) return;
    for (let i = 0; i < fragments.length; i++) {
      const fragment: EventData = fragments[i];
      if (fragment === null || typeof fragment !== "object") continue;
      const index = fragment.index;
      const numbered = typeof index === "number";
      let detail = numbered ? this.#detailAt.get(index) : undefined;
      // Two kinds of detail at one index (rare): the one of this kind, if there is one yet.
      if (detail !== undefined && detail.type !== fragment.type) {
        detail = undefined;
        for (const d of this.#details!) {
          if (d.index === index && d.type === fragment.type) detail ??= d;
        }
      }
      if (detail === undefined) {
        // Once per detail: merging changes it, and the chunk stays as it was sent.
        (this.#details ??= []).push(detail = { ...fragment });
        if (numbered) this.#detailAt.set(index, detail);
        continue;
      }
      for (const key in fragment) {
        const value = fragment[key];
        const current = detail[key];
        if (typeof value === "string" && isAppended(key)) {
          detail[key] = typeof current === "string" ? current + value : value;
        } else if (current == null) {
          detail[key] = value;
        }
      }
    }
  }

  sources(citations: unknown, searchResults: unknown): void {
    if (Array.isArray(citations)) this.#sources = citations;
    if (Array.isArray(searchResults)) this.#searchResults = searchResults;
  }

  build(acc: Accumulator, result: ChatResult): void {
    result.output = this.whole ?? this.#message(acc);
    const citations = this.#citations();
    if (citations.length > 0) result.citations = citations;
  }

  #message(acc: Accumulator): AssistantMessage {
    const hasCalls = acc.toolCalls.length > 0;
    // OpenAI's own shape: no text beside tool calls or a refusal is `content: null`.
    const empty = acc.content === "" && (hasCalls || acc.refusal !== undefined);
    const message: AssistantMessage = {
      role: "assistant",
      content: this.parts ?? (empty ? null : acc.content),
    };
    if (this.reasoningField !== undefined && acc.reasoning !== "") {
      message[this.reasoningField] = acc.reasoning;
    }
    if (this.#details !== undefined && this.#details.length > 0) {
      message.reasoning_details = this.#details;
    }
    if (acc.refusal !== undefined) message.refusal = acc.refusal;
    if (this.#annotations !== undefined) message.annotations = this.#annotations;
    if (this.legacy && acc.toolCalls.length === 1) {
      // The legacy API has one call; its output keeps that shape (mixed with tool_calls: not).
      const { name, arguments: args } = acc.toolCalls[0]!;
      message.function_call = { name, arguments: args };
    } else if (hasCalls) {
      message.tool_calls = acc.toolCalls.map((call) => {
        const entry: EventData = {
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        };
        if (call.extra !== undefined) entry.extra_content = call.extra;
        return entry;
      });
    }
    return message;
  }

  #citations(): Citation[] {
    const citations: Citation[] = [];
    for (const a of this.#annotations ?? []) {
      const c = a?.url_citation ?? a;
      citations.push(citation(c?.url, c?.title, undefined, c?.start_index, c?.end_index, a));
    }
    for (const url of this.#sources ?? []) {
      const found = this.#searchResults?.find((s) => s?.url === url);
      citations.push(
        citation(url, found?.title, found?.snippet, undefined, undefined, found ?? url),
      );
    }
    return citations;
  }
}

function isAppended(key: string): boolean {
  return key === "text" || key === "summary" || key === "data" || key === "signature";
}
