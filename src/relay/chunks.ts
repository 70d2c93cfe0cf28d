import type { ChatResult, StreamEvent, ToolCall } from "../core/chat_result.ts";
import { callId, toAnnotations, toOpenAIUsage } from "./openai_shapes.ts";
import { joinFields, type UpstreamFields } from "./upstream_fields.ts";
import { errorEvent, type RelayFailure } from "./error_response.ts";
import { AnswerStart } from "./answer_start.ts";
import { KEEP_ALIVE } from "./keep_alive.ts";

/** Ends a successful stream only: a failed one ends with an error event. */
export const DONE_EVENT = "data: [DONE]\n\n";

/** Upstream events sent on as they arrived (forward.ts), one batch per run of them. */
export interface ForwardedEvents {
  type: "forwarded";
  /** Whole SSE events, each `data: <the upstream's data>\n\n`. */
  text: string;
  /** Set when the batch is encoded: the events that follow start a new batch. */
  sealed: boolean;
  /**
   * The events' own bytes when they were one whole piece of the upstream's body, `piece` its text:
   * used only if `piece` is `text`, as a hand-written parser may not read other SSE framing.
   */
  bytes: Uint8Array | undefined;
  piece: string | undefined;
}

/**
 * Upstream events of the caller's own protocol, as the provider sent them (passthrough.ts); the
 * empty text marks an attempt whose events are passed on, so the encoder writes no other.
 */
export interface PassedEvents {
  type: "passed";
  text: string;
  /** Set when the item is encoded: later events start a new one (until then they join it). */
  sealed: boolean;
}

/** What the relay's decoders queue beside the client's events. */
export type RelayItem = ForwardedEvents | UpstreamFields | PassedEvents;
export type RelayEvent = StreamEvent | RelayItem;

/** OpenAI `chat.completion.chunk` events, whatever protocol the upstream speaks. */
export class ChunkEncoder extends AnswerStart {
  readonly includeUsage: boolean;
  readonly #id: string;
  readonly #model: string;
  readonly #created: number;
  /** `data: {"id":…,"model":…,"choices":`: the fields every chunk repeats, serialised once. */
  #head: string;
  #fields: UpstreamFields | undefined = undefined;
  /**
   * Set by the fast path: a call's `extra_content` (Gemini's `thought_signature`, which the next
   * turn must send back) goes out once, on the call's first chunk after it arrived (or at the end).
   */
  toolCalls: ToolCall[] | undefined = undefined;
  #extraSent: boolean[] | undefined = undefined;
  /** By tool call index: its index among the calls written (from 0), -1 if the provider ran it. */
  #callIndex: number[] = [];
  #callsWritten = 0;

  readonly done: string = DONE_EVENT;

  fail(failure: RelayFailure): string {
    return errorEvent(failure);
  }

  keepAlive(): string {
    return KEEP_ALIVE;
  }

  constructor(id: string, model: string, includeUsage: boolean) {
    super();
    this.includeUsage = includeUsage;
    this.#id = id;
    this.#model = model;
    this.#created = Math.floor(Date.now() / 1000);
    this.#head = head(id, model, this.#created);
  }

  /** The upstream's own `id`, `model` and `created`: these chunks must match forwarded ones. */
  adopt(id: string, model: string, created: number | undefined): void {
    if (this.started) return;
    this.#head = head(id || this.#id, model || this.#model, created ?? this.#created);
  }

  /** Seals the batch, as `encode` would; never while upstream fields wait to go out before it. */
  takeBytes(event: RelayEvent): Uint8Array | undefined {
    if (
      event.type !== "forwarded" || event.bytes === undefined || event.piece !== event.text ||
      this.#fields !== undefined
    ) {
      return undefined;
    }
    event.sealed = true;
    return event.bytes;
  }

  encode(event: RelayEvent): string {
    switch (event.type) {
      case "forwarded":
        event.sealed = true;
        return this.#flushFields() + event.text;
      case "open":
        // An attempt begins: what a failed one left waiting is not this answer's.
        this.#fields = undefined;
        return "";
      case "upstream-fields": {
        if (!this.started && this.#fields !== undefined) {
          // Nothing written yet, and no chunk of its own may be: the first delta takes all.
          this.#fields = joinFields(this.#fields, event);
          return "";
        }
        const pending = this.#flushFields();
        this.#fields = event;
        return pending;
      }
      case "text":
        return this.started && this.#fields === undefined
          ? this.#textDelta('"content":', event.text)
          : this.delta({ content: event.text });
      case "reasoning":
        return this.started && this.#fields === undefined
          ? this.#textDelta('"reasoning_content":', event.text)
          : this.delta({ reasoning_content: event.text });
      case "tool-call": {
        if (event.providerExecuted === true) {
          this.#callIndex[event.index] = -1;
          return "";
        }
        const index = this.#callIndex[event.index] = this.#callsWritten++;
        // OpenAI SDKs accept only function calls; one without a name (apply_patch, shell…) is
        // named after its kind.
        const call: Record<string, unknown> = {
          index,
          id: event.id || callId(index),
          type: "function",
          function: { name: event.name || (event.toolType ?? ""), arguments: "" },
        };
        this.#takeExtra(call, event.index);
        return this.delta({ tool_calls: [call] });
      }
      case "tool-call-delta": {
        const index = this.#callIndex[event.index] ?? event.index;
        if (index < 0) return "";
        const call = { index, function: { arguments: event.argumentsDelta } };
        this.#takeExtra(call, event.index);
        return this.delta({ tool_calls: [call] });
      }
      case "finish":
        return this.#flushFields() + this.#lateExtras() + this.finish(event.result);
      default:
        // retry, fallback: invisible by design; usage is sent after the finish chunk.
        return "";
    }
  }

  /** A later fragment may bring a call's `extra_content`: a read after its first chunk went out. */
  #takeExtra(call: Record<string, unknown>, index: number): boolean {
    const extra = this.toolCalls?.[index]?.extra;
    if (extra === undefined || this.#extraSent?.[index] === true) return false;
    call.extra_content = extra;
    (this.#extraSent ??= [])[index] = true;
    return true;
  }

  /** A chunk for each call whose `extra_content` came with no fragment written after it. */
  #lateExtras(): string {
    let text = "";
    const count = this.toolCalls?.length ?? 0;
    for (let index = 0; index < count; index++) {
      const call = { index: this.#callIndex[index] ?? index };
      if (call.index >= 0 && this.#takeExtra(call, index)) {
        text += this.delta({ tool_calls: [call] });
      }
    }
    return text;
  }

  #flushFields(): string {
    return this.#fields === undefined ? "" : this.delta({});
  }

  /** The common text delta, with no object built. */
  #textDelta(field: string, text: string): string {
    return `${this.#head}[{"index":0,"delta":{${field}${
      JSON.stringify(text)
    }},"logprobs":null,"finish_reason":null}]}\n\n`;
  }

  private delta(delta: Record<string, unknown>): string {
    if (!this.started) {
      // OpenAI puts the role on the first delta only.
      this.begin();
      delta = { role: "assistant", ...delta };
    }
    const fields = this.#fields;
    this.#fields = undefined;
    if (fields?.details !== undefined) delta.reasoning_details = fields.details;
    if (fields?.extra !== undefined) delta.extra_content = fields.extra;
    const logprobs = fields?.logprobs ?? null;
    return this.chunk([{ index: 0, delta, logprobs, finish_reason: null }]);
  }

  private finish(result: ChatResult): string {
    // A refusal has no event of its own: what the client decoded goes out whole here (deltas
    // the fast path forwarded never reach `result.refusal`, so none is sent twice).
    let text = result.refusal === undefined ? "" : this.delta({ refusal: result.refusal });
    const annotations = toAnnotations(result.citations);
    if (annotations !== undefined) text += this.delta({ annotations });
    const delta = this.started ? {} : { role: "assistant", content: "" };
    this.begin();
    text += this.chunk([
      { index: 0, delta, logprobs: null, finish_reason: result.finishReason },
    ]);
    if (this.includeUsage && result.usage !== undefined) {
      text += this.chunk([], toOpenAIUsage(result.usage));
    }
    return text;
  }

  private chunk(choices: unknown[], usage?: Record<string, unknown>): string {
    const tail = usage === undefined ? "" : `,"usage":${JSON.stringify(usage)}`;
    return `${this.#head}${JSON.stringify(choices)}${tail}}\n\n`;
  }
}

function head(id: string, model: string, created: number): string {
  const envelope = JSON.stringify({ id, object: "chat.completion.chunk", created, model });
  return `data: ${envelope.slice(0, -1)},"choices":`;
}
