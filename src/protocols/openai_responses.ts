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
import { responsesError, responsesFinish } from "./openai_responses_wire.ts";
import { ResponsesOutput } from "./openai_responses_output.ts";
import {
  argumentsOf,
  CALL_KINDS,
  customToolNames,
  ranByProvider,
  unknownCallKind,
} from "./openai_responses_calls.ts";

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
  /** By `output_index`: the reasoning items whose text was taken in. */
  #reasoned: boolean[] = [];
  #refusalItem: unknown = -1;
  /** A refusal taken in from a done item does not count as delivered. */
  #itemsDone = false;
  /** The custom tools `response.tools` declares: a custom tool call named otherwise is xAI's. */
  #customTools: string[] | undefined = undefined;
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
        // Only these stream their input; other kinds are whole (and their `call_id` final) at done.
        if (item?.type === "function_call" || item?.type === "custom_tool_call") {
          const slot = this.#startCall(message.output_index, item);
          if (typeof item.arguments === "string") acc.addToolArguments(slot, item.arguments);
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
        this.#customTools ??= customToolNames(message.response?.tools);
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
        this.#settle(message.response?.output);
        responsesFinish(message.response, acc);
        return EVENT_TERMINAL;
      case "response.failed":
        this.#out.settle(message.response?.output);
        throw responsesError(message);
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
    } else if (kind === "reasoning" && this.#reasoned[index as number] !== true) {
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

  /** Items the final response completes or adds count as done; an unknown call kind may end it. */
  #settle(output: unknown): void {
    const settled = this.#out.settle(output);
    if (settled === undefined) return;
    for (const index of settled.taken) this.#itemDone(index, this.#out.at(index));
    this.#unknownCall(settled.last, this.#out.at(settled.last));
  }

  /** An item kind stopstream does not know that carries a `call_id` and ends the response. */
  #unknownCall(index: number, item: EventData): void {
    const kind = unknownCallKind(item);
    if (kind === undefined || this.#slots[index] !== undefined) return;
    const slot = this.#startCall(index, item, kind);
    this.#acc.addToolArguments(slot, argumentsOf(item));
  }

  #startCall(index: unknown, item: EventData, kind = CALL_KINDS[item.type]): number {
    const name = typeof item.name === "string" ? item.name : "";
    const id = String(item.call_id ?? item.id ?? "");
    const provider = ranByProvider(item, this.#customTools);
    const slot = this.#acc.startToolCall(id, name, undefined, kind, provider);
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
    if (typeof index === "number") this.#reasoned[index] = true;
  }

  /** The tool call an event belongs to, or -1 (which `addToolArguments` ignores). */
  #slot(message: EventData): number {
    return this.#slots[message.output_index] ??
      this.#itemIds.indexOf(message.item_id ?? message.item?.id);
  }

  response(response: EventData): void {
    this.#acc.identify(response);
    this.#customTools ??= customToolNames(response?.tools);
    const output: unknown[] = Array.isArray(response?.output) ? response.output : [];
    output.forEach((item, index) => {
      this.#out.item(index, item, true);
      this.#itemDone(index, item);
    });
    this.#unknownCall(output.length - 1, output[output.length - 1]);
    responsesFinish(response, this.#acc);
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
