// The caller's protocol is the upstream's: events go on as sent, unknown types included. The
// client still decodes each but plain text deltas, so retries and fallbacks work as translated.

import type { Accumulator } from "../core/accumulator.ts";
import type { ProtocolName, StreamChatOptions } from "../core/chat_options.ts";
import { Call, type FeedDecoder, planCall, wrapDecoders } from "../client/internal.ts";
import {
  EVENT_PROGRESS,
  EVENT_TERMINAL,
  type EventOutcome,
  type StreamDecoder,
} from "../protocols/protocol.ts";
import type { PassedEvents, RelayItem } from "./chunks.ts";
import { plainText, sequenceNumber, unquote } from "./plain_text.ts";

/** The data's `type`, which SDKs dispatch on as the SSE event name (some upstreams omit it). */
const TYPE = /^\{\s*"type"\s*:\s*"([a-z_.]+)"/;

/** Marks an attempt whose events are passed on (see `InboundEncoder`). */
const MARK: PassedEvents = { type: "passed", text: "", sealed: true };

/** Holds what comes before the answer begins: a retry's events must stay invisible. */
class PassThroughDecoder implements FeedDecoder {
  #inner: StreamDecoder;
  #acc: Accumulator;
  #queue: Call<RelayItem>;
  /** The protocol whose plain text deltas go on undecoded; `undefined` when all are decoded. */
  #plain: ProtocolName | undefined;
  #held = "";
  #marked = false;
  /** The item still waiting in the queue: the events of one network read go out as one write. */
  #last: PassedEvents = MARK;
  #cursor: unknown = undefined;

  constructor(
    inner: StreamDecoder,
    acc: Accumulator,
    queue: Call<RelayItem>,
    plain: ProtocolName | undefined,
  ) {
    this.#inner = inner;
    this.#acc = acc;
    this.#queue = queue;
    this.#plain = plain;
  }

  onEvent(event: string | undefined, data: string): EventOutcome {
    if (!this.#marked) {
      // Before the client's first event of this attempt: the encoder stops translating.
      this.#marked = true;
      this.#queue.push(MARK);
    }
    let outcome: EventOutcome = EVENT_PROGRESS;
    // Once the answer is delivering, a plain text delta goes on undecoded, as the chat route's do
    // (and, as there, `result.content` lacks it); only a stream that is read has a caller.
    const acc = this.#acc;
    const plain = this.#plain;
    if (
      plain !== undefined && acc.delivered && acc.sink !== null &&
      plainText(plain, event, data) !== undefined
    ) {
      if (plain === "openai-responses") this.#cursor = sequenceNumber(data) ?? this.#cursor;
    } else {
      // A failing event throws here, and is not passed on: the relay writes its own error.
      outcome = this.#inner.onEvent(event, data);
      this.#cursor = this.#inner.cursor;
    }
    const lines = data.indexOf("\n") === -1 ? data : data.replaceAll("\n", "\ndata: ");
    const name = event ?? TYPE.exec(data)?.[1];
    const text = name === undefined ? `data: ${lines}\n\n` : `event: ${name}\ndata: ${lines}\n\n`;
    if (this.#acc.delivered || outcome === EVENT_TERMINAL) {
      if (this.#last.sealed) {
        this.#last = { type: "passed", text: this.#held + text, sealed: false };
        this.#queue.push(this.#last);
      } else {
        this.#last.text += text;
      }
      this.#held = "";
    } else {
      this.#held += text;
    }
    return outcome;
  }

  endedCleanly(): boolean {
    return this.#inner.endedCleanly();
  }

  get cursor(): unknown {
    return this.#cursor;
  }
}

/** Text deltas of another protocol's upstream, added to the answer without a parse. */
class PlainTextDecoder implements FeedDecoder {
  #inner: StreamDecoder;
  #acc: Accumulator;
  #protocol: ProtocolName;

  constructor(inner: StreamDecoder, acc: Accumulator, protocol: ProtocolName) {
    this.#inner = inner;
    this.#acc = acc;
    this.#protocol = protocol;
  }

  onEvent(event: string | undefined, data: string): EventOutcome {
    // The answer's first event still goes to the decoder: it names the answer's id and model.
    const acc = this.#acc;
    const text = acc.delivered && acc.sink !== null
      ? plainText(this.#protocol, event, data)
      : undefined;
    if (text === undefined) return this.#inner.onEvent(event, data);
    acc.addText(unquote(text));
    return EVENT_PROGRESS;
  }

  endedCleanly(): boolean {
    return this.#inner.endedCleanly();
  }
}

/** `streamChat` whose targets of `protocol` pass their events on (see `InboundEncoder`). */
export function passThroughCall(
  options: StreamChatOptions,
  protocol: ProtocolName,
): Call<RelayItem> {
  const plan = planCall(options);
  const call = new Call<RelayItem>(plan);
  // A continuation asks for what follows the text so far, which must hold every delta as decoded.
  const continues = plan.onPartial === "continue";
  const plain = continues ? undefined : protocol;
  wrapDecoders(plan, protocol, (decoder, acc) => new PassThroughDecoder(decoder, acc, call, plain));
  if (continues) return call;
  // A Responses decoder numbers its text items as they come: its deltas are always decoded.
  for (const other of ["openai-chat", "anthropic-messages"] as const) {
    if (other === protocol) continue;
    wrapDecoders(plan, other, (decoder, acc) => new PlainTextDecoder(decoder, acc, other));
  }
  return call;
}
