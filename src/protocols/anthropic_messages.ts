import { appendMessage, joinURL, requestHeaders } from "./request.ts";
import { upstreamError } from "./upstream_error.ts";
import { errorEventPayload, type EventData, parseEventData } from "./event_data.ts";
import { StreamProtocolError } from "../core/error_classes.ts";
import type { Accumulator } from "../core/accumulator.ts";
import { type AnthropicUsage, anthropicUsage } from "./anthropic_wire.ts";
import { AnthropicOutput } from "./anthropic_output.ts";
import {
  EVENT_KEEPALIVE,
  EVENT_PROGRESS,
  EVENT_TERMINAL,
  type EventOutcome,
  type Protocol,
  type ProtocolRequest,
  type RequestTarget,
  type StreamDecoder,
} from "./protocol.ts";

// Any other reason (`end_turn`, `stop_sequence`, `pause_turn`: a server-tool loop hit its limit
// and the caller resumes; any newer one) means the answer ended: `stop`.
const FINISH: Record<string, string> = {
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

class AnthropicDecoder implements StreamDecoder {
  #acc: Accumulator;
  #out: AnthropicOutput;
  /** Block index → index in `acc.toolCalls` (only tool_use blocks have one). */
  #slots: Array<number | undefined> = [];
  /** `input` of a tool_use start that carried one, used when no deltas follow. */
  #inputs: unknown[] = [];
  #startUsage: AnthropicUsage | undefined = undefined;
  #messageId: string | undefined = undefined;
  /** Whether the last block opened was text (text blocks split for citations run on). */
  #afterText = true;
  /** Whitespace cut from a continuation's prefill (the API rejects it); the model re-sends it. */
  #skip = "";

  constructor(acc: Accumulator) {
    this.#acc = acc;
    this.#out = new AnthropicOutput(acc.previousOutput);
    acc.output = this.#out;
    if (acc.continuedFrom > 0) this.#skip = acc.content.slice(acc.content.trimEnd().length);
  }

  onEvent(event: string | undefined, data: string): EventOutcome {
    if (event === "ping") return EVENT_KEEPALIVE;
    // The event name decides, not the data: an `event: error` whose data is text, or JSON
    // without `type`, is still the provider's error (as in Anthropic's own SDK).
    if (event === "error") throw upstreamError(errorEventPayload(data));
    const message = parseEventData(data);
    const acc = this.#acc;
    switch (message.type) {
      case "content_block_delta": {
        const delta = message.delta;
        switch (delta?.type) {
          case "text_delta":
            if (typeof delta.text === "string") this.#text(delta.text);
            break;
          case "thinking_delta":
            if (typeof delta.thinking === "string") acc.addReasoning(delta.thinking);
            break;
          case "input_json_delta": {
            const slot = this.#slots[message.index];
            if (slot === undefined) this.#out.delta(message.index, delta);
            else if (typeof delta.partial_json === "string") {
              acc.addToolArguments(slot, delta.partial_json);
            }
            break;
          }
          default:
            // signature_delta, citations_delta and new block kinds' deltas: kept for `output`.
            this.#out.delta(message.index, delta);
        }
        return EVENT_PROGRESS;
      }
      case "content_block_start":
        this.#open(message.index, message.content_block);
        return EVENT_PROGRESS;
      case "content_block_stop":
        this.#close(message.index);
        return EVENT_PROGRESS;
      case "message_start":
        this.message(message.message);
        return EVENT_PROGRESS;
      case "message_delta": {
        const reason = message.delta?.stop_reason;
        if (typeof reason === "string") acc.setFinish(FINISH[reason] ?? "stop", reason);
        // message_delta's counts are cumulative and win, except the nulls it may send for
        // input counts, which message_start had.
        if (message.usage != null) {
          const usage: EventData = { ...this.#startUsage };
          for (const key in message.usage) {
            if (message.usage[key] != null) usage[key] = message.usage[key];
          }
          acc.setUsage(anthropicUsage(usage));
        }
        return EVENT_PROGRESS;
      }
      case "message_stop":
        this.end();
        return EVENT_TERMINAL;
      case "ping":
        return EVENT_KEEPALIVE;
      case "error":
        throw upstreamError(message);
      default:
        // New event types may appear (Anthropic's versioning policy): they are still data.
        return EVENT_PROGRESS;
    }
  }

  end(): void {
    const acc = this.#acc;
    // A message that arrived whole in message_start has no message_delta: its usage then.
    if (acc.usage === undefined && this.#startUsage !== undefined) {
      acc.setUsage(anthropicUsage(this.#startUsage));
    }
    // No stop reason was sent: the answer ended, and no provider value is made up.
    if (acc.finishReason === undefined) acc.setFinish("stop");
  }

  endedCleanly(): boolean {
    return this.#acc.finishReason !== undefined;
  }

  /** Also a whole message: programmatic tool calling sends a complete `tool_use` turn this way. */
  message(m: EventData): void {
    const acc = this.#acc;
    const id = typeof m?.id === "string" ? m.id : "";
    if (this.#messageId !== undefined) {
      // A repeated start of the same message is harmless; another message's would splice
      // two generations (and their signed thinking) into one turn.
      if (id === this.#messageId) return;
      throw new StreamProtocolError(
        `stopstream: message ${JSON.stringify(id)} started while ${
          JSON.stringify(this.#messageId)
        } was open (are two streams merged?); send the request again`,
      );
    }
    this.#messageId = id;
    acc.identify(m);
    if (m?.usage != null) this.#startUsage = m.usage;
    const content = m?.content;
    if (Array.isArray(content)) {
      for (let index = 0; index < content.length; index++) {
        this.#open(index, content[index]);
        this.#close(index);
      }
    }
    const reason = m?.stop_reason;
    if (typeof reason === "string") {
      acc.setFinish(FINISH[reason] ?? "stop", reason);
      if (this.#startUsage !== undefined) acc.setUsage(anthropicUsage(this.#startUsage));
    }
  }

  #open(index: number, block: EventData): void {
    const acc = this.#acc;
    const isText = block?.type === "text";
    // Text after a tool call, its result or thinking is a new paragraph: never glued on.
    if (isText && !this.#afterText && acc.content !== "") acc.addText("\n\n");
    this.#afterText = isText;
    this.#out.open(index, block, acc);
    // Server tools run at Anthropic: only `tool_use` is a call for the caller to make.
    switch (block?.type) {
      case "text":
        if (typeof block.text === "string") this.#text(block.text);
        break;
      case "thinking":
        if (typeof block.thinking === "string") acc.addReasoning(block.thinking);
        break;
      case "tool_use": {
        const slot = acc.startToolCall(String(block.id ?? ""), String(block.name ?? ""));
        this.#slots[index] = slot;
        this.#out.slot(index, slot);
        if (isNonEmptyObject(block.input)) this.#inputs[index] = block.input;
      }
    }
  }

  #close(index: number): void {
    const acc = this.#acc;
    this.#out.close(index, acc);
    const slot = this.#slots[index];
    // A tool without parameters streams no JSON at all: `{}` is what it was called with.
    if (slot !== undefined && acc.toolCalls[slot]?.arguments === "") {
      acc.addToolArguments(slot, JSON.stringify(this.#inputs[index] ?? {}));
    }
  }

  #text(text: string): void {
    if (this.#skip !== "" && text !== "") {
      let i = 0;
      while (i < text.length && i < this.#skip.length && text[i] === this.#skip[i]) i++;
      this.#skip = i === text.length ? this.#skip.slice(i) : "";
      text = text.slice(i);
    }
    this.#acc.addText(text);
  }
}

function isNonEmptyObject(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  for (const _ in value) return true;
  return false;
}

export const anthropicMessages: Protocol = {
  name: "anthropic-messages",
  buildRequest(target: RequestTarget): ProtocolRequest {
    const headers = requestHeaders(target, { "anthropic-version": "2023-06-01" });
    // The caller's own x-api-key (a gateway's, say) is kept as given.
    if (target.apiKey !== undefined && !target.headers.has("x-api-key")) {
      headers.set("x-api-key", target.apiKey);
    }
    const body = JSON.stringify({ ...target.body, stream: true });
    return { url: joinURL(target.baseURL, "/messages"), headers, body };
  },
  createDecoder(acc: Accumulator): StreamDecoder {
    return new AnthropicDecoder(acc);
  },
  toUpstreamError: upstreamError,
  decodeMessage(message: unknown, acc: Accumulator): void {
    const decoder = new AnthropicDecoder(acc);
    decoder.message(message);
    decoder.end();
  },
  continuationBody(body: Record<string, unknown>, partialText: string): Record<string, unknown> {
    // Assistant prefill. The API rejects a final assistant turn ending in whitespace: it is
    // trimmed here and skipped again when the model re-sends it (the decoder's `#skip`).
    const prefill = partialText.trimEnd();
    if (prefill === "") return body;
    return appendMessage(body, { role: "assistant", content: prefill });
  },
};
