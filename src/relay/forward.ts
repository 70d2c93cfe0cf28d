import type { Accumulator } from "../core/accumulator.ts";
import { Call, type FeedDecoder, planCall, wrapDecoders } from "../client/internal.ts";
import { EVENT_PROGRESS, type EventOutcome, type StreamDecoder } from "../protocols/protocol.ts";
import type { StreamChatOptions } from "../core/chat_options.ts";
import type { ChunkEncoder, ForwardedEvents, RelayItem } from "./chunks.ts";
import { UPSTREAM_FIELDS, upstreamFields } from "./upstream_fields.ts";
import type { PieceTap } from "./upstream_body.ts";

const HAS_DELTA = /"delta"\s*:\s*\{/;
/**
 * What makes an event the relay's business: errors, finish reasons, usage, reasoning, tool calls,
 * citations, non-string content, a choice but the first. Each pattern starts with an unescaped
 * `"`, which a JSON string cannot contain: no text hides a key.
 */
const NEEDS_RELAY =
  /"(?:error"|reasoning"|reasoning_details"\s*:\s*\[\s*[^\s\]]|tool_calls"|function_call"|annotations"|citations"|search_results"|index"\s*:\s*(?:[^\s0]|0\d)|usage"\s*:\s*[^\sn]|finish_reason"\s*:\s*[^\sn]|choices"\s*:\s*(?:\[\s*\]|[^\s[]))|"content"(?<!"logprobs"\s*:\s*\{[^{}]*"content")\s*:\s*[[{]/;
/** A key with a `\u` escape could spell a name above unseen; the costly check runs only on `\u`. */
const ESCAPE = /\\u/;
const ESCAPED_KEY = /[{,]\s*"[^"]*\\u/;
const CREATED = /"created"\s*:\s*(\d+)/;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/** One `{…}` line with a delta and nothing the relay acts on; not re-validated as JSON. */
export function forwardable(data: string): boolean {
  return data.charCodeAt(0) === OPEN_BRACE && data.charCodeAt(data.length - 1) === CLOSE_BRACE &&
    data.indexOf("\n") === -1 && HAS_DELTA.test(data) && !NEEDS_RELAY.test(data) &&
    !(ESCAPE.test(data) && ESCAPED_KEY.test(data));
}

/**
 * Forwards only once content was delivered (nothing can be retried), through the call's event
 * queue; a batch keeps its piece's bytes only if every event of the piece joined it.
 */
class ForwardingDecoder implements FeedDecoder {
  #inner: StreamDecoder;
  #acc: Accumulator;
  #queue: Call<RelayItem>;
  #encoder: ChunkEncoder;
  #tap: PieceTap | undefined;
  #batch: ForwardedEvents | undefined = undefined;
  /** The piece whose events come now (its `tap.seq`), and whether the next is its first. */
  #piece = -1;
  #first = false;
  #whole: ForwardedEvents | undefined = undefined;
  /** The text of the chunk being parsed: the piece's, when it is one. */
  #text = "";

  constructor(
    inner: StreamDecoder,
    acc: Accumulator,
    encoder: ChunkEncoder,
    tap: PieceTap | undefined,
    queue: Call<RelayItem>,
  ) {
    this.#inner = inner;
    this.#acc = acc;
    this.#queue = queue;
    this.#encoder = encoder;
    this.#tap = tap;
    // The attempt that delivers is the last: its calls are the ones the encoder writes.
    encoder.toolCalls = acc.toolCalls;
  }

  onEvent(event: string | undefined, data: string): EventOutcome {
    const acc = this.#acc;
    const sink = acc.sink;
    const tap = this.#tap;
    if (tap !== undefined && tap.seq !== this.#piece) {
      this.#piece = tap.seq;
      this.#first = true;
      this.#batch = undefined;
      this.#whole = undefined;
    }
    const first = this.#first;
    this.#first = false;
    if (acc.delivered && sink !== null && event === undefined && forwardable(data)) {
      const batch = this.#batch;
      if (batch !== undefined && !batch.sealed) {
        batch.text += `data: ${data}\n\n`;
      } else {
        const bytes = first ? tap?.bytes : undefined;
        const piece = bytes === undefined ? undefined : this.#text;
        this.#batch = { type: "forwarded", text: `data: ${data}\n\n`, sealed: false, bytes, piece };
        if (bytes !== undefined) this.#whole = this.#batch;
        this.#queue.push(this.#batch);
      }
      // More content is likely next: its first bytes need not be a read of their own.
      if (tap !== undefined) tap.coalesce = true;
      return EVENT_PROGRESS;
    }
    // What may end the answer is next: no read waits for bytes that might not come.
    if (tap !== undefined) tap.coalesce = false;
    // What the decoder emits now must come after what was forwarded before it.
    if (this.#whole !== undefined) this.#whole.bytes = undefined;
    this.#whole = undefined;
    this.#batch = undefined;
    const before = acc.delivered;
    // Queued before what the decoder makes of the event, so they go out on its chunk.
    if (sink !== null && UPSTREAM_FIELDS.test(data)) {
      const fields = upstreamFields(data);
      if (fields !== undefined) this.#queue.push(fields);
    }
    const outcome = this.#inner.onEvent(event, data);
    if (!before && acc.delivered) {
      // The answer begins with this attempt: its chunks and the relay's must look alike.
      const created = CREATED.exec(data)?.[1];
      this.#encoder.adopt(acc.id, acc.model, created === undefined ? undefined : Number(created));
    }
    return outcome;
  }

  onText(text: string): void {
    this.#text = text;
  }

  endedCleanly(): boolean {
    return this.#inner.endedCleanly();
  }
}

/** `streamChat` passing unchanged `openai-chat` events on as they arrived (iterated only). */
export function relayChat(
  options: StreamChatOptions,
  encoder: ChunkEncoder,
  tap?: PieceTap,
): Call<RelayItem> {
  const plan = planCall(options);
  const call = new Call<RelayItem>(plan);
  // A continuation needs every delta of the text so far: forwarded events never reach it.
  if (plan.onPartial === "continue") return call;
  wrapDecoders(
    plan,
    "openai-chat",
    (decoder, acc) => new ForwardingDecoder(decoder, acc, encoder, tap, call),
  );
  return call;
}
