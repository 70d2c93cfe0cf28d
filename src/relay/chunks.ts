/**
 * Translation of stopstream's normalised events into OpenAI `chat.completion.chunk` SSE events
 * and of a {@linkcode ChatResult} into one `chat.completion`: whatever protocol the upstream
 * speaks, the caller sees OpenAI's shapes.
 *
 * @module
 */

import type { ChatResult, Citation, StreamEvent, ToolCall, Usage } from "../chat_result.ts";
import { joinLogprobs } from "./logprobs.ts";

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
 * Fields of an upstream `openai-chat` event that the client's events do not carry but a caller
 * must get as the provider sent them: the choice's `logprobs`, the delta's `reasoning_details`
 * (OpenRouter's signed reasoning) and `extra_content` (Gemini's `thought_signature`), each only
 * when it holds something. Queued by the fast path (forward.ts) just before the events decoded
 * from the same upstream event, so the encoder puts them on the next chunk it writes — or,
 * once the answer has begun, on a chunk of their own when that event wrote none. Before it
 * has begun they wait for the first delta (joined with any later ones), and an attempt that
 * fails takes its own with it: nothing of it reaches the caller.
 *
 * @example
 * ```ts
 * const fields: UpstreamFields = { type: "upstream-fields", logprobs: { content: [] }, details: undefined, extra: undefined };
 * ```
 */
export interface UpstreamFields {
  type: "upstream-fields";
  logprobs: Record<string, unknown> | undefined;
  details: unknown[] | undefined;
  extra: unknown;
}

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
  /** Upstream fields for the next chunk written (see {@linkcode UpstreamFields}). */
  #fields: UpstreamFields | undefined = undefined;
  /**
   * The call's tool calls (set by the fast path): a call's `extra_content` (Gemini's
   * `thought_signature`, which its next turn must send back) goes out with its first chunk.
   */
  toolCalls: ToolCall[] | undefined = undefined;

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

  /** Whether upstream fields wait for a chunk (a forwarded piece must then be encoded). */
  get holdsFields(): boolean {
    return this.#fields !== undefined;
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
        const extra = this.toolCalls?.[event.index]?.extra;
        if (extra !== undefined) call.extra_content = extra;
        return this.delta({ tool_calls: [call] });
      }
      case "tool-call-delta":
        return this.delta({
          tool_calls: [{ index: event.index, function: { arguments: event.argumentsDelta } }],
        });
      case "finish":
        return this.#flushFields() + this.finish(event.result);
      default:
        // open, retry, fallback: invisible by design; usage is sent after the finish chunk.
        return "";
    }
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

/** Two events' fields as one: lists joined in order, the later `extra_content` kept. */
function joinFields(first: UpstreamFields, then: UpstreamFields): UpstreamFields {
  let logprobs = first.logprobs ?? then.logprobs;
  if (first.logprobs !== undefined && then.logprobs !== undefined) {
    logprobs = joinLogprobs(joinLogprobs({}, first.logprobs), then.logprobs);
  }
  return {
    type: "upstream-fields",
    logprobs,
    details: first.details === undefined || then.details === undefined
      ? first.details ?? then.details
      : [...first.details, ...then.details],
    extra: then.extra ?? first.extra,
  };
}

function head(id: string, model: string, created: number): string {
  const envelope = JSON.stringify({ id, object: "chat.completion.chunk", created, model });
  return `data: ${envelope.slice(0, -1)},"choices":`;
}

/**
 * A `chat.completion` object (OpenAI's non-streaming answer).
 *
 * @example
 * ```ts
 * const text = (completion.choices[0]?.message.content ?? "") as string;
 * ```
 */
export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: Array<
    {
      index: number;
      message: Record<string, unknown>;
      /** `null`, or (an `openai-chat` upstream asked for them) the answer's `logprobs`. */
      logprobs: unknown;
      finish_reason: string;
    }
  >;
  usage?: Record<string, unknown>;
}

/**
 * One `chat.completion` object assembled from a finished stream.
 *
 * @example
 * ```ts
 * const completion = toChatCompletion(result, "chatcmpl-1", "demo");
 * completion.choices[0].message.content;
 * ```
 */
export function toChatCompletion(
  result: ChatResult,
  id: string,
  model: string,
): ChatCompletion {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: result.content === "" && result.toolCalls.length > 0 ? null : result.content,
    refusal: result.refusal ?? null,
  };
  if (result.reasoning !== "") message.reasoning_content = result.reasoning;
  // OpenRouter's reasoning blocks, merged, as the provider's own message has them.
  const details = (result.output as { reasoning_details?: unknown } | undefined)
    ?.reasoning_details;
  if (details !== undefined) message.reasoning_details = details;
  const annotations = toAnnotations(result.citations);
  if (annotations !== undefined) message.annotations = annotations;
  if (result.toolCalls.length > 0) {
    message.tool_calls = result.toolCalls.map((call, index) => {
      const entry: Record<string, unknown> = {
        id: call.id || callId(index),
        type: "function",
        function: { name: call.name || (call.type ?? ""), arguments: call.arguments },
      };
      if (call.extra !== undefined) entry.extra_content = call.extra;
      return entry;
    });
  }
  const completion: ChatCompletion = {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: result.finishReason }],
  };
  if (result.usage !== undefined) completion.usage = toOpenAIUsage(result.usage);
  return completion;
}

/**
 * Citations as OpenAI `url_citation` annotations (`undefined` when there are none). A citation
 * without a URL (a passage of a document the caller sent) has no place in that shape and is
 * left out.
 */
function toAnnotations(
  citations: Citation[] | undefined,
): Array<Record<string, unknown>> | undefined {
  const annotations: Array<Record<string, unknown>> = [];
  for (const c of citations ?? []) {
    if (c.url === undefined) continue;
    annotations.push({
      type: "url_citation",
      url_citation: {
        url: c.url,
        title: c.title ?? c.url,
        start_index: c.start ?? 0,
        end_index: c.end ?? 0,
      },
    });
  }
  return annotations.length > 0 ? annotations : undefined;
}

/**
 * Normalised usage in OpenAI's field names.
 *
 * @example
 * ```ts
 * toOpenAIUsage({ inputTokens: 3, outputTokens: 5, totalTokens: 8, raw: {} }).total_tokens; // 8
 * ```
 */
function toOpenAIUsage(usage: Usage): Record<string, unknown> {
  const openai: Record<string, unknown> = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.totalTokens,
  };
  if (usage.cachedInputTokens !== undefined) {
    openai.prompt_tokens_details = { cached_tokens: usage.cachedInputTokens };
  }
  if (usage.reasoningTokens !== undefined) {
    openai.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  }
  return openai;
}

/**
 * The id of a call the provider gave none (the legacy `function_call`): the caller must name it
 * in the `tool` message it sends back.
 */
function callId(index: number): string {
  return `call_${index}`;
}
