// The caller's protocol is the upstream's: events go on as sent, unknown types included. The
// client still decodes each, so retries and fallbacks work as for a translated answer.

import type { Accumulator } from "../core/accumulator.ts";
import type { ProtocolName, StreamChatOptions } from "../core/chat_options.ts";
import { Call, type FeedDecoder, planCall, wrapDecoders } from "../client/internal.ts";
import { EVENT_TERMINAL, type EventOutcome, type StreamDecoder } from "../protocols/protocol.ts";
import type { PassedEvents, RelayItem } from "./chunks.ts";

/** The data's `type`, which SDKs dispatch on as the SSE event name (some upstreams omit it). */
const TYPE = /^\{\s*"type"\s*:\s*"([a-z_.]+)"/;

/** Marks an attempt whose events are passed on (see `InboundEncoder`). */
const MARK: PassedEvents = { type: "passed", text: "", sealed: true };

/** Holds what comes before the answer begins: a retry's events must stay invisible. */
class PassThroughDecoder implements FeedDecoder {
  #inner: StreamDecoder;
  #acc: Accumulator;
  #queue: Call<RelayItem>;
  #held = "";
  #marked = false;
  /** The item still waiting in the queue: the events of one network read go out as one write. */
  #last: PassedEvents = MARK;

  constructor(inner: StreamDecoder, acc: Accumulator, queue: Call<RelayItem>) {
    this.#inner = inner;
    this.#acc = acc;
    this.#queue = queue;
  }

  onEvent(event: string | undefined, data: string): EventOutcome {
    if (!this.#marked) {
      // Before the client's first event of this attempt: the encoder stops translating.
      this.#marked = true;
      this.#queue.push(MARK);
    }
    // A failing event throws here, and is not passed on: the relay writes its own error.
    const outcome = this.#inner.onEvent(event, data);
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
    return this.#inner.cursor;
  }
}

/** `streamChat` whose targets of `protocol` pass their events on (see `InboundEncoder`). */
export function passThroughCall(
  options: StreamChatOptions,
  protocol: ProtocolName,
): Call<RelayItem> {
  const plan = planCall(options);
  const call = new Call<RelayItem>(plan);
  wrapDecoders(plan, protocol, (decoder, acc) => new PassThroughDecoder(decoder, acc, call));
  return call;
}
