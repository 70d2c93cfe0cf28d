/**
 * Translation of stopstream's normalised events into OpenAI `chat.completion.chunk` SSE events
 * (a whole answer as one `chat.completion`: completion.ts; the shapes both use:
 * openai_shapes.ts): whatever protocol the upstream speaks, the caller sees OpenAI's shapes.
 *
 * @module
 */

import type { ChatResult, StreamEvent, ToolCall } from "../chat_result.ts";
import { callId, toAnnotations, toOpenAIUsage } from "./openai_shapes.ts";
import { joinFields, type UpstreamFields } from "./upstream_fields.ts";

/**
 * The SSE event that ends a successful OpenAI stream.
 *
 * @example
 * ```ts
 * controller.enqueue(encoder.encode(DONE_EVENT));
 * ```
 */
export const DONE_EVENT = "data: [DONE]\n\n";

/**
 * Upstream events sent on as they arrived (`data: …` frames, see `forward.ts`): one batch per
 * run of consecutive events the relay has no need to change, so one per network chunk.
 *
 * @example
 * ```ts
 * const batch: ForwardedEvents = { type: "forwarded", text: 'data: {"choices":[…]}\n\n', sealed: false, bytes: undefined, piece: undefined };
 * if (batch.bytes !== undefined && batch.piece === batch.text) write(batch.bytes);
 * ```
 */
export interface ForwardedEvents {
  type: "forwarded";
  /** Whole SSE events, each `data: <the upstream's data>\n\n`. */
  text: string;
  /** Set when the batch is encoded: the events that follow start a new batch. */
  sealed: boolean;
  /**
   * The upstream's own bytes for these events, when they were one whole piece of its body and
   * nothing else; `piece` is their text. They go out as they came only when `piece` is `text`,
   * character for character: no comment, `id:` or other field, no CR, no `data:` without its
   * space (an SSE reader reads the same events either way, a hand-written parser might not).
   */
  bytes: Uint8Array | undefined;
  piece: string | undefined;
}

/**
 * What a relayed stream yields: the client's events, and batches of forwarded upstream events.
 *
 * @example
 * ```ts
 * const iterator = chat[Symbol.asyncIterator]() as AsyncIterator<RelayEvent>;
 * ```
 */
export type RelayEvent = StreamEvent | ForwardedEvents | UpstreamFields;

/**
 * Encodes one relayed stream's events as `data: {chat.completion.chunk}` SSE events.
 *
 * @example
 * ```ts
 * const encoder = new ChunkEncoder("chatcmpl-1", "demo", true);
 * encoder.encode({ type: "text", text: "Hi" }); // 'data: {"id":"chatcmpl-1",…}\n\n'
 * ```
 */
export class ChunkEncoder {
  readonly includeUsage: boolean;
  /** Whether a content, reasoning or tool-call delta has been encoded. */
  started = false;
  readonly #id: string;
  readonly #model: string;
  readonly #created: number;
  /** `data: {"id":…,"model":…,"choices":`: the fields every chunk repeats, serialised once. */
  #head: string;
  /** Upstream fields for the next chunk written (see `UpstreamFields`, upstream_fields.ts). */
  #fields: UpstreamFields | undefined = undefined;
  /**
   * The call's tool calls (set by the fast path): a call's `extra_content` (Gemini's
   * `thought_signature`, which its next turn must send back) goes out once, with the first of
   * the call's chunks written after it arrived, or before the finish chunk.
   */
  toolCalls: ToolCall[] | undefined = undefined;
  /** Which calls' `extra_content` went out (by index; only once a call had one). */
  #extraSent: boolean[] | undefined = undefined;

  constructor(id: string, model: string, includeUsage: boolean) {
    this.includeUsage = includeUsage;
    this.#id = id;
    this.#model = model;
    this.#created = Math.floor(Date.now() / 1000);
    this.#head = head(id, model, this.#created);
  }

  /**
   * Takes the upstream's own `id`, `model` and `created` for every chunk (an empty or missing
   * one keeps the relay's), so that the chunks this encoder writes match the events forwarded
   * as they arrived. Ignored once the first delta was encoded: one answer, one id.
   */
  adopt(id: string, model: string, created: number | undefined): void {
    if (this.started) return;
    this.#head = head(id || this.#id, model || this.#model, created ?? this.#created);
  }

  /**
   * The upstream's own bytes for `event`, when it is a batch of forwarded events that may go out
   * as they came instead of encoded (the batch is then sealed, as `encode` would): a whole piece
   * of the upstream's body, framed as the relay would frame it, with no upstream fields waiting
   * to go out before it. Comparing the texts costs one flattening copy and a memcmp per piece (a
   * byte-by-byte check of the framing cost 0.56 µs an event).
   */
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

  /** The SSE text for `event`, or `""` for events the caller must not see (retries, opens). */
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
        // Every kind of call is a function call to OpenAI clients (their SDKs accept no other
        // kind); one without a name (apply_patch, shell…) is named after its kind.
        const call: Record<string, unknown> = {
          index: event.index,
          id: event.id || callId(event.index),
          type: "function",
          function: { name: event.name || (event.toolType ?? ""), arguments: "" },
        };
        this.#takeExtra(call, event.index);
        return this.delta({ tool_calls: [call] });
      }
      case "tool-call-delta": {
        const call = { index: event.index, function: { arguments: event.argumentsDelta } };
        this.#takeExtra(call, event.index);
        return this.delta({ tool_calls: [call] });
      }
      case "finish":
        return this.#flushFields() + this.#lateExtras() + this.finish(event.result);
      default:
        // open, retry, fallback: invisible by design; usage is sent after the finish chunk.
        return "";
    }
  }

  /**
   * Puts call `index`'s `extra_content` on `call` if it has one that has not gone out (a later
   * fragment may bring it: a network read after the call's first chunk was written); says
   * whether it did.
   */
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
      const call = { index };
      if (this.#takeExtra(call, index)) text += this.delta({ tool_calls: [call] });
    }
    return text;
  }

  /** Upstream fields no chunk took yet, in a chunk of their own (`""` when there are none). */
  #flushFields(): string {
    return this.#fields === undefined ? "" : this.delta({});
  }

  /** The common text delta, written around the one string it carries (no object built). */
  #textDelta(field: string, text: string): string {
    return `${this.#head}[{"index":0,"delta":{${field}${
      JSON.stringify(text)
    }},"logprobs":null,"finish_reason":null}]}\n\n`;
  }

  private delta(delta: Record<string, unknown>): string {
    if (!this.started) {
      // OpenAI puts the role on the first delta only.
      this.started = true;
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
    // Cited sources go where OpenAI puts them: `annotations` on the message delta, all at once.
    // A refusal (OpenAI `delta.refusal`) has no event of its own: what the client decoded of it
    // goes out whole here, or a refused request's caller would get an empty answer. Refusal
    // deltas the fast path forwarded never reach `result.refusal`, so none is sent twice.
    let text = result.refusal === undefined ? "" : this.delta({ refusal: result.refusal });
    const annotations = toAnnotations(result.citations);
    if (annotations !== undefined) text += this.delta({ annotations });
    const delta = this.started ? {} : { role: "assistant", content: "" };
    this.started = true;
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
