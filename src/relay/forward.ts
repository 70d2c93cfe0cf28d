/**
 * The relay's fast path for `openai-chat` upstreams: once the answer has begun, an event the
 * relay has no need to change is sent on as it arrived — its `data` untouched, never parsed or
 * re-serialised — instead of being decoded into the client's events and written anew as a
 * `chat.completion.chunk`. The two are the same shape already.
 *
 * The client's guarantees hold because the client still runs the call: its retry loop, its
 * watchdog and its decoder see every event. Only the events that need nothing are spared the
 * decoder, and only once content was delivered, when nothing can be retried any more:
 *
 * - before the first content every event is decoded (a retry or fallback then is invisible,
 *   and the first delta is written by the relay's `ChunkEncoder`, which takes the upstream's
 *   `id`, `model` and `created` from then on, so that every chunk of the answer carries them);
 * - an event that may carry an error, a finish reason, usage, reasoning under another name,
 *   tool calls, citations or content parts — anything the relay acts on or rewrites — is
 *   decoded as before, and the relay writes its own chunk for it: errors end the stream with
 *   the relay's error event, usage reaches only a caller who asked, `[DONE]` only a stream
 *   that completed.
 *
 * Telling the two apart costs a few regular expressions per event, not a `JSON.parse`. Each
 * pattern starts with an unescaped `"`, which a JSON string cannot contain, so no text of the
 * answer can hide a key from them (nor can a key spelled with `\u` escapes: such an event is
 * decoded); a false alarm only costs the decode. What they do not do is check every character:
 * a forwarded event is checked to be one `{…}` object line that has a `delta`, not re-validated
 * as JSON.
 *
 * @module
 */

import type { Accumulator } from "../accumulator.ts";
import { ChatStream } from "../chat_stream.ts";
import { EVENT_PROGRESS, type EventOutcome, type StreamDecoder } from "../protocols/protocol.ts";
import type { CallPlan } from "../retry_loop.ts";
import { planCall } from "../stream_chat.ts";
import type { StreamChatOptions } from "../chat_options.ts";
import type { StreamEvent } from "../chat_result.ts";
import type { ChunkEncoder, ForwardedEvents } from "./chunks.ts";
import { UPSTREAM_FIELDS, upstreamFields } from "./upstream_fields.ts";
import type { PieceTap } from "./upstream_body.ts";

/** A choice with a `delta` object: what every forwarded event must have. */
const HAS_DELTA = /"delta"\s*:\s*\{/;
/**
 * What makes an event the relay's business: an error; a finish reason or usage that is not
 * `null`; reasoning named `reasoning` (callers get `reasoning_content`); tool calls (their
 * indexes are the relay's, see openai_chat.ts), the legacy `function_call` (the relay sends
 * it as a tool call); annotations and citations (sent together before
 * the finish); content that is not a string (but `logprobs.content`, a list, is the
 * caller's to have as sent); no choices at all.
 */
const NEEDS_RELAY =
  /"(?:error"|reasoning"|tool_calls"|function_call"|annotations"|citations"|search_results"|usage"\s*:\s*[^\sn]|finish_reason"\s*:\s*[^\sn]|choices"\s*:\s*(?:\[\s*\]|[^\s[]))|"content"(?<!"logprobs"\s*:\s*\{[^{}]*"content")\s*:\s*[[{]/;
/**
 * A key written with a `\u` escape, which could spell one of the names above unseen. No JSON
 * encoder escapes the ASCII letters of a key; a hostile upstream might. Looked for only when the
 * data has a `\u` at all (one cheap scan): the full pattern costs more than the rest together.
 */
const ESCAPE = /\\u/;
const ESCAPED_KEY = /[{,]\s*"[^"]*\\u/;
const CREATED = /"created"\s*:\s*(\d+)/;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

/**
 * Whether an upstream event's `data` can go to the caller as it is: one line holding one JSON
 * object with a delta and nothing the relay must act on.
 *
 * @example
 * ```ts
 * forwardable('{"id":"c1","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}'); // true
 * forwardable('{"id":"c1","choices":[],"usage":{"total_tokens":9}}'); // false
 * ```
 */
export function forwardable(data: string): boolean {
  return data.charCodeAt(0) === OPEN_BRACE && data.charCodeAt(data.length - 1) === CLOSE_BRACE &&
    data.indexOf("\n") === -1 && HAS_DELTA.test(data) && !NEEDS_RELAY.test(data) &&
    !(ESCAPE.test(data) && ESCAPED_KEY.test(data));
}

/**
 * An `openai-chat` decoder that forwards what it can and hands the rest to the client's own.
 * Forwarded events reach the relay through the call's event queue, in order with the client's
 * events (so backpressure is unchanged): a run of them shares one {@linkcode ForwardedEvents}
 * batch, open until the relay takes it (`sealed`), the client's decoder emits something, or
 * the next piece of the upstream body begins.
 *
 * When every event of a piece (see `PieceTap`) went into one batch, the batch also carries the
 * piece's bytes and text (`onText`), and the relay writes the bytes instead of the batch's text
 * when the two texts are one: a piece with a comment, another field, CR line endings or a
 * `data:` without its space goes out as the relay frames it. The relay takes a batch only after
 * the client has parsed the piece it came from whole (a piece is parsed in one synchronous call;
 * the relay runs after it), so an event of the piece that was not forwarded has dropped the bytes by then.
 */
class ForwardingDecoder implements StreamDecoder {
  #inner: StreamDecoder;
  #acc: Accumulator;
  #encoder: ChunkEncoder;
  #tap: PieceTap | undefined;
  #batch: ForwardedEvents | undefined = undefined;
  /** The piece whose events come now (its `tap.seq`), and whether the next is its first. */
  #piece = -1;
  #first = false;
  /** The batch that began with the piece's first event, carrying the piece's bytes. */
  #whole: ForwardedEvents | undefined = undefined;
  /** The text of the chunk being parsed: the piece's, when it is one. */
  #text = "";

  constructor(
    inner: StreamDecoder,
    acc: Accumulator,
    encoder: ChunkEncoder,
    tap: PieceTap | undefined,
  ) {
    this.#inner = inner;
    this.#acc = acc;
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
      // The first event of a new piece: it starts a batch of its own.
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
        // Not a public event: only the relay, which encodes it, iterates this stream.
        sink.push(this.#batch as unknown as StreamEvent);
      }
      // More content is likely next: its first bytes need not be a read of their own.
      if (tap !== undefined) tap.coalesce = true;
      return EVENT_PROGRESS;
    }
    // What may end the answer is next: no read waits for bytes that might not come.
    if (tap !== undefined) tap.coalesce = false;
    // Not forwarded: the piece cannot go out as it came, and what the decoder emits now must
    // come after what was forwarded before it.
    if (this.#whole !== undefined) this.#whole.bytes = undefined;
    this.#whole = undefined;
    this.#batch = undefined;
    const before = acc.delivered;
    // Queued before what the decoder makes of the event, so they go out on its chunk.
    if (sink !== null && UPSTREAM_FIELDS.test(data)) {
      const fields = upstreamFields(data);
      if (fields !== undefined) sink.push(fields as unknown as StreamEvent);
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

/**
 * Puts `wrap` in front of the stream decoder of each `openai-chat` target of `plan` (the others
 * are left as they are).
 *
 * @example
 * ```ts
 * wrapOpenAIChatDecoders(plan, (decoder, acc) => new LogprobsDecoder(decoder, tap));
 * ```
 */
export function wrapOpenAIChatDecoders(
  plan: CallPlan,
  wrap: (decoder: StreamDecoder, acc: Accumulator) => StreamDecoder,
): void {
  for (const target of plan.targets) {
    const protocol = target.protocol;
    if (protocol.name === "openai-chat" && "createDecoder" in protocol) {
      target.protocol = {
        ...protocol,
        createDecoder: (acc) => wrap(protocol.createDecoder(acc), acc),
      };
    }
  }
}

/**
 * `streamChat` for a streaming relay answer written by `encoder`: `openai-chat` targets forward
 * the events the relay need not change as {@linkcode ForwardedEvents} batches, which
 * `encoder.encode` writes as they are; other protocols go through the client's events as usual.
 * Only an iterated stream forwards (the events are the relay's to write), and then `result`
 * lacks what was forwarded: its `content` is not the answer.
 *
 * @example
 * ```ts
 * const encoder = new ChunkEncoder(id, model, includeUsage);
 * const chat = relayChat({ baseURL, body, signal }, encoder);
 * for await (const event of chat) out += encoder.encode(event);
 * ```
 */
export function relayChat(
  options: StreamChatOptions,
  encoder: ChunkEncoder,
  tap?: PieceTap,
): ChatStream {
  const plan = planCall(options);
  wrapOpenAIChatDecoders(
    plan,
    (decoder, acc) => new ForwardingDecoder(decoder, acc, encoder, tap),
  );
  return new ChatStream(plan);
}
