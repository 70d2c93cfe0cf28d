import type { Accumulator } from "../core/accumulator.ts";
import {
  EVENT_PROGRESS,
  EVENT_TERMINAL,
  type EventOutcome,
  type Protocol,
  type ProtocolRequest,
  type RequestTarget,
  type StreamDecoder,
} from "./protocol.ts";
import { appendMessage, bearerHeaders, joinURL } from "./request.ts";
import { upstreamError } from "./upstream_error.ts";
import { errorEventPayload, type EventData, parseEventData } from "./event_data.ts";
import { ChatMessageOutput } from "./openai_chat_output.ts";
import { type OpenAIChatChunk, type OpenAIToolCallDelta, openAIUsage } from "./openai_chat_wire.ts";

const TEXT_PART = { type: "text" };

class OpenAIChatDecoder implements StreamDecoder {
  #acc: Accumulator;
  /** Provider tool-call index → index in `acc.toolCalls`. */
  #slots: number[] = [];
  #out: ChatMessageOutput;

  constructor(acc: Accumulator) {
    this.#acc = acc;
    this.#out = new ChatMessageOutput(acc.previousOutput);
    acc.output = this.#out;
  }

  onEvent(event: string | undefined, data: string): EventOutcome {
    // Some servers pad the sentinel (`data:  [DONE]`, a trailing `\r`): it still ends the stream.
    if (data === "[DONE]" || (data.length < 32 && data.trim() === "[DONE]")) {
      if (this.#acc.finishReason === undefined) this.#acc.setFinish("stop");
      return EVENT_TERMINAL;
    }
    if (event === "error") throw upstreamError(errorEventPayload(data));
    const chunk: OpenAIChatChunk = parseEventData(data);
    if (chunk.error != null) throw upstreamError(chunk);
    this.chunk(chunk);
    return EVENT_PROGRESS;
  }

  chunk(chunk: OpenAIChatChunk): void {
    const acc = this.#acc;
    acc.identify(chunk);
    const out = this.#out;
    // Perplexity repeats its sources on every chunk; the latest list is the whole one.
    if (chunk.citations != null || chunk.search_results != null) {
      out.sources(chunk.citations, chunk.search_results);
    }
    const choices = chunk.choices;
    if (choices !== undefined && choices.length > 0) {
      // Only choice 0 is assembled; `n > 1` streams interleave the others.
      const choice = choices[0]!.index === undefined || choices[0]!.index === 0
        ? choices[0]!
        : choices.find((c) => c.index === 0);
      if (choice !== undefined) {
        const delta = choice.delta;
        if (delta != null) {
          // Some gateways send both names with the same text: take one, never both.
          const reasoning = delta.reasoning_content ?? delta.reasoning;
          if (typeof reasoning === "string") {
            out.reasoningField ??= delta.reasoning_content != null
              ? "reasoning_content"
              : "reasoning";
            acc.addReasoning(reasoning);
          }
          const content = delta.content;
          if (typeof content === "string") {
            acc.addText(content);
            if (out.parts !== undefined && content !== "") out.part(TEXT_PART, content);
          } else if (Array.isArray(content)) {
            this.#parts(content);
          }
          if (typeof delta.refusal === "string") acc.addRefusal(delta.refusal);
          if (delta.annotations != null) out.annotate(delta.annotations);
          if (delta.reasoning_details != null) {
            out.details(delta.reasoning_details);
            // Snowflake sends its reasoning only there; OpenRouter in `reasoning` too.
            if (reasoning == null && out.reasoningField === undefined) {
              this.#detailsText(delta.reasoning_details);
            }
          }
          if (delta.tool_calls != null) {
            for (const call of delta.tool_calls) this.#toolCall(call);
          }
          if (delta.function_call != null) {
            // A tool call at an index no `tool_calls` entry has; the output keeps its shape.
            this.#toolCall({ index: -1, function: delta.function_call });
            out.legacy = true;
          }
        }
        const finish = choice.finish_reason;
        if (typeof finish === "string" && finish !== "") {
          // The legacy `function_call` is a tool call; setFinish maps unknown reasons to stop.
          acc.setFinish(finish === "function_call" ? "tool_calls" : finish, finish);
        }
      }
    }
    const usage = chunk.usage ?? chunk.x_groq?.usage;
    if (usage != null) acc.setUsage(openAIUsage(usage));
  }

  endedCleanly(): boolean {
    // No [DONE], but a finish_reason followed by the body's end: complete (llama.cpp, Ollama).
    return this.#acc.finishReason !== undefined;
  }

  /** Mistral's reasoning models: `text` parts are answer text, `thinking` parts reasoning. */
  #parts(parts: unknown[]): void {
    const acc = this.#acc;
    for (const part of parts as EventData[]) {
      if (part?.type === "text" && typeof part.text === "string") {
        acc.addText(part.text);
        this.#out.part(part, part.text);
      } else if (part?.type === "thinking") {
        const text = textOf(part.thinking);
        acc.addReasoning(text);
        this.#out.part(part, text);
      } else if (part != null) {
        this.#out.part(part, "");
      }
    }
  }

  /** The text of `reasoning.text` and `reasoning.summary` details, as reasoning. */
  #detailsText(details: unknown): void {
    if (!Array.isArray(details)) return;
    for (const detail of details as EventData[]) {
      const text = detail?.type === "reasoning.text"
        ? detail.text
        : detail?.type === "reasoning.summary"
        ? detail.summary
        : undefined;
      if (typeof text === "string") this.#acc.addReasoning(text);
    }
  }

  #toolCall(delta: OpenAIToolCallDelta): void {
    const acc = this.#acc;
    const index = typeof delta.index === "number" ? delta.index : 0;
    const id = typeof delta.id === "string" ? delta.id : "";
    const fn = delta.function;
    let slot = this.#slots[index];
    const current = slot === undefined ? undefined : acc.toolCalls[slot];
    if (current === undefined || (id !== "" && current.id !== "" && current.id !== id)) {
      // A first fragment, or a different id at a used index: Ollama sends parallel calls
      // all at index 0, each complete and with its own id.
      slot = acc.startToolCall(
        id,
        typeof fn?.name === "string" ? fn.name : "",
        delta.extra_content,
      );
      this.#slots[index] = slot;
    } else {
      if (current.id === "" && id !== "") current.id = id;
      if (current.name === "" && typeof fn?.name === "string") current.name = fn.name;
      if (current.extra === undefined && delta.extra_content !== undefined) {
        current.extra = delta.extra_content;
      }
    }
    const fragment = fn?.arguments;
    if (typeof fragment === "string") acc.addToolArguments(slot!, fragment);
  }
}

function textOf(thinking: unknown): string {
  if (typeof thinking === "string") return thinking;
  let text = "";
  if (Array.isArray(thinking)) {
    for (const chunk of thinking) if (typeof chunk?.text === "string") text += chunk.text;
  }
  return text;
}

export const openAIChat: Protocol = {
  name: "openai-chat",
  buildRequest(target: RequestTarget): ProtocolRequest {
    const headers = bearerHeaders(target);
    const body: Record<string, unknown> = { ...target.body, stream: true };
    const streamOptions = target.body.stream_options as Record<string, unknown> | undefined;
    if (streamOptions?.include_usage === undefined) {
      body.stream_options = { ...streamOptions, include_usage: true };
    }
    return {
      url: joinURL(target.baseURL, "/chat/completions"),
      headers,
      body: JSON.stringify(body),
    };
  },
  createDecoder(acc: Accumulator): StreamDecoder {
    return new OpenAIChatDecoder(acc);
  },
  toUpstreamError: upstreamError,
  /** A whole `chat.completion` as one chunk whose delta is the message (each call at its index). */
  decodeMessage(message: unknown, acc: Accumulator): void {
    const completion = message as EventData;
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    const m = choice?.message ?? {};
    const calls = Array.isArray(m.tool_calls)
      ? m.tool_calls.map((call: EventData, index: number) => ({ ...call, index }))
      : undefined;
    new OpenAIChatDecoder(acc).chunk({
      ...completion,
      choices: [{
        index: 0,
        delta: { ...m, tool_calls: calls },
        finish_reason: choice?.finish_reason,
      }],
    });
    if (acc.finishReason === undefined) acc.setFinish("stop");
    (acc.output as ChatMessageOutput).whole = { role: "assistant", ...m };
  },
  continuationBody(body: Record<string, unknown>, partialText: string): Record<string, unknown> {
    // Prefix completion (DeepSeek, vLLM, llama.cpp…): the partial answer as a trailing
    // assistant message marked `prefix: true`; the model streams only what follows.
    return appendMessage(body, { role: "assistant", content: partialText, prefix: true });
  },
};
