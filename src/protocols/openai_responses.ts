import { bearerHeaders, joinURL } from "./request.ts";
import { errorEventPayload, type EventData, parseEventData } from "./event_data.ts";
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
import { responsesError, responsesUsage } from "./openai_responses_wire.ts";
import { argumentsOf, CALL_KINDS, ResponsesOutput } from "./openai_responses_output.ts";

class ResponsesDecoder implements StreamDecoder {
  #acc: Accumulator;
  /** `output_index` → index in `acc.toolCalls` (shared with the output, which patches calls). */
  #slots: Array<number | undefined> = [];
  #out = new ResponsesOutput(this.#slots);
  /** Item id of each tool call by `acc.toolCalls` index, for events without `output_index`. */
  #itemIds: string[] = [];
  /** The output items whose text / reasoning arrived last: a new item starts a new paragraph. */
  #textItem: unknown = -1;
  #reasoningItem: unknown = -1;
  #refusalItem: unknown = -1;
  /** A refusal taken in from a done item does not count as delivered. */
  #itemsDone = false;
  cursor: unknown = undefined;

  constructor(acc: Accumulator) {
    this.#acc = acc;
    acc.output = this.#out;
  }

  onEvent(event: string | undefined, data: string): EventOutcome {
    if (event === "error") throw responsesError(errorEventPayload(data));
    const message = parseEventData(data);
    const acc = this.#acc;
    this.cursor = message.sequence_number;
    switch (message.type ?? event) {
      case "response.output_text.delta":
        if (typeof message.delta === "string") {
          if (message.output_index !== this.#textItem) this.#enterText(message.output_index);
          acc.addText(message.delta);
        }
        return EVENT_PROGRESS;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        if (typeof message.delta === "string") {
          if (message.output_index !== this.#reasoningItem) {
            this.#enterReasoning(message.output_index);
          }
          acc.addReasoning(message.delta);
        }
        return EVENT_PROGRESS;
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta":
        if (typeof message.delta === "string") {
          acc.addToolArguments(this.#slot(message), message.delta);
        }
        return EVENT_PROGRESS;
      case "response.refusal.delta":
        if (typeof message.delta === "string") {
          this.#refusalItem = message.output_index;
          acc.addRefusal(message.delta);
        }
        return EVENT_PROGRESS;
      case "response.reasoning_summary_part.added":
        // Summary parts are paragraphs; without a break they would run into each other.
        if (message.summary_index > 0 && acc.reasoning !== "") acc.addReasoning("\n\n");
        return EVENT_PROGRESS;
      case "response.output_item.added": {
        const item = message.item;
        this.#out.item(message.output_index, item, false);
        if (CALL_KINDS[item?.type] !== undefined) {
          const slot = this.#startCall(message.output_index, item);
          // Only a function call's arguments are its input so far; an action is whole at done.
          if (item.type === "function_call" && typeof item.arguments === "string") {
            acc.addToolArguments(slot, item.arguments);
          }
        }
        return EVENT_PROGRESS;
      }
      case "response.output_item.done":
        this.#out.item(message.output_index, message.item, true);
        this.#itemDone(message.output_index, message.item);
        return EVENT_PROGRESS;
      case "response.function_call_arguments.done": {
        // Servers that send no deltas still send the whole arguments at the end.
        if (typeof message.arguments !== "string") return EVENT_PROGRESS;
        const slot = this.#slot(message);
        if (acc.toolCalls[slot]?.arguments === "") acc.addToolArguments(slot, message.arguments);
        return EVENT_PROGRESS;
      }
      case "response.created":
      case "response.in_progress":
        acc.identify(message.response);
        return EVENT_PROGRESS;
      case "response.completed":
      case "response.incomplete":
        // A server that streamed nothing of the answer (no deltas, no item done) sends it all
        // here: each output item counts as done, as in a whole (non-streaming) Response.
        if (!acc.delivered && !this.#itemsDone) {
          this.response(message.response);
          return EVENT_TERMINAL;
        }
        acc.identify(message.response);
        this.#out.final(message.response?.output);
        finish(message.response, acc);
        return EVENT_TERMINAL;
      case "response.failed":
      case "error":
        throw responsesError(message);
      default:
        return EVENT_PROGRESS;
    }
  }

  endedCleanly(): boolean {
    return false;
  }

  /** Whatever of a done item did not stream counts as if it had (a call never added starts now). */
  #itemDone(index: unknown, item: EventData): void {
    this.#itemsDone = true;
    const acc = this.#acc;
    const kind = item?.type;
    if (kind === "message" && !this.#out.hasText(index as number) && index !== this.#refusalItem) {
      for (const part of Array.isArray(item.content) ? item.content : []) {
        if (part?.type === "output_text" && typeof part.text === "string" && part.text !== "") {
          if (index !== this.#textItem) this.#enterText(index);
          acc.addText(part.text);
        } else if (part?.type === "refusal" && typeof part.refusal === "string") {
          acc.addRefusal(part.refusal);
        }
      }
    } else if (kind === "reasoning" && index !== this.#reasoningItem) {
      const parts: EventData[] = item.content?.length > 0 ? item.content : item.summary ?? [];
      const text = parts.map((part) => part?.text ?? "").join("\n\n");
      if (text !== "") {
        this.#enterReasoning(index);
        acc.addReasoning(text);
      }
    } else if (CALL_KINDS[kind] !== undefined) {
      let slot = this.#slots[index as number] ?? this.#slot({ item });
      if (acc.toolCalls[slot] === undefined) slot = this.#startCall(index, item);
      if (acc.toolCalls[slot]!.arguments === "") acc.addToolArguments(slot, argumentsOf(item));
    }
  }

  #startCall(index: unknown, item: EventData): number {
    const name = typeof item.name === "string" ? item.name : "";
    const id = String(item.call_id ?? item.id ?? "");
    const slot = this.#acc.startToolCall(id, name, undefined, CALL_KINDS[item.type]);
    if (typeof index === "number") this.#slots[index] = slot;
    this.#itemIds[slot] = String(item.id ?? "");
    return slot;
  }

  #enterText(index: unknown): void {
    const acc = this.#acc;
    if (acc.content !== "") acc.addText("\n\n");
    this.#textItem = index;
    this.#out.text(index as number, acc.content.length);
  }

  #enterReasoning(index: unknown): void {
    if (this.#acc.reasoning !== "") this.#acc.addReasoning("\n\n");
    this.#reasoningItem = index;
  }

  /** The tool call an event belongs to, or -1 (which `addToolArguments` ignores). */
  #slot(message: EventData): number {
    return this.#slots[message.output_index] ??
      this.#itemIds.indexOf(message.item_id ?? message.item?.id);
  }

  response(response: EventData): void {
    this.#acc.identify(response);
    const output: unknown[] = Array.isArray(response?.output) ? response.output : [];
    output.forEach((item, index) => {
      this.#out.item(index, item, true);
      this.#itemDone(index, item);
    });
    finish(response, this.#acc);
  }
}

function finish(response: EventData, acc: Accumulator): void {
  if (response?.usage != null) acc.setUsage(responsesUsage(response.usage));
  const reason = response?.incomplete_details?.reason;
  if (response?.status === "incomplete" || typeof reason === "string") {
    const provider = typeof reason === "string" ? reason : "incomplete";
    // An incomplete answer was cut short; only a filter says otherwise.
    acc.setFinish(provider === "content_filter" ? "content_filter" : "length", provider);
  } else {
    const status = typeof response?.status === "string" ? response.status : undefined;
    acc.setFinish(acc.toolCalls.length > 0 ? "tool_calls" : "stop", status);
  }
}

/** No `continuationBody`: the Responses API has no documented way to continue a partial message. */
export const openAIResponses: Protocol = {
  name: "openai-responses",
  buildRequest(target: RequestTarget): ProtocolRequest {
    const headers = bearerHeaders(target);
    const body = JSON.stringify({ ...target.body, stream: true });
    return { url: joinURL(target.baseURL, "/responses"), headers, body };
  },
  createDecoder(acc: Accumulator): StreamDecoder {
    return new ResponsesDecoder(acc);
  },
  toUpstreamError: responsesError,
  decodeMessage(message: unknown, acc: Accumulator): void {
    const response = message as EventData;
    if (response?.status === "failed") throw responsesError({ type: "response.failed", response });
    new ResponsesDecoder(acc).response(response);
  },
};
