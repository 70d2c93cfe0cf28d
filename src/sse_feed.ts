/**
 * eventsource-parser wired to a protocol decoder: text in, decoder calls out, plus the state
 * the reading loop needs (terminal seen, progress count). Pure: no I/O, no timers.
 *
 * @module
 */

import { createParser, type EventSourceMessage, type ParseError } from "eventsource-parser";
import { ConnectionError, isStreamProtocolError, StreamProtocolError } from "./errors.ts";
import { EVENT_KEEPALIVE, EVENT_TERMINAL, type StreamDecoder } from "./protocols/protocol.ts";

/**
 * eventsource-parser wired to a decoder. Callbacks are created once per attempt; per event
 * the only work is the decoder's.
 */
export class SseFeed {
  readonly decoder: StreamDecoder;
  terminal = false;
  /** Count of progress events, compared per chunk to feed the watchdog. */
  progress = 0;
  /** Events decoded, on every connection this feed read (a resumed stream goes on counting). */
  events = 0;
  /** The `id:` of the last event decoded, `undefined` when it had none: where a resume starts. */
  lastEventId: string | undefined = undefined;
  #maxEventBytes: number;
  #parser;
  /** Set by {@linkcode SseFeed.reconnect}: sees the first event of the new connection. */
  #checkFirst: ((message: EventSourceMessage) => void) | undefined = undefined;

  constructor(decoder: StreamDecoder, maxEventBytes: number) {
    this.decoder = decoder;
    this.#maxEventBytes = maxEventBytes;
    this.#parser = createParser({
      onEvent: (message: EventSourceMessage) => this.#onEvent(message),
      onError: (error: ParseError) => {
        if (error.type === "max-buffer-size-exceeded") throw oversized(maxEventBytes, error);
        // Unknown fields and bad `retry:` lines are ignored, as the SSE spec says.
      },
      maxBufferSize: maxEventBytes,
    });
  }

  feed(text: string): void {
    if (text.length > 0) this.#parser.feed(text);
  }

  /** Flushes a final event that the server did not terminate with a blank line. */
  end(rest: string): void {
    try {
      this.#parser.feed(rest + "\n\n");
    } catch (error) {
      // A half-written event at the end of the body is a cut connection, not bad data.
      if (isStreamProtocolError(error)) {
        throw new ConnectionError(
          "stopstream: the stream ended in the middle of an event (the connection closed early); " +
            "try again",
          { cause: error },
        );
      }
      throw error;
    }
  }

  /**
   * Goes on reading the same stream from a new connection: an event half-received on the old
   * one is dropped (the server sends it again whole), and `checkFirst`, when given, sees the
   * first event of the new connection before it is decoded (and throws to refuse it).
   */
  reconnect(checkFirst?: (message: EventSourceMessage) => void): void {
    this.#parser.reset();
    this.#checkFirst = checkFirst;
  }

  #onEvent(message: EventSourceMessage): void {
    if (this.terminal) return;
    // The parser's cap only sees what it buffers between chunks: an event that arrives whole
    // in one chunk is dispatched without being measured.
    if (message.data.length > this.#maxEventBytes) throw oversized(this.#maxEventBytes);
    if (this.#checkFirst !== undefined) {
      const check = this.#checkFirst;
      this.#checkFirst = undefined;
      check(message);
    }
    const outcome = this.decoder.onEvent(message.event, message.data);
    // Recorded once the decoder has taken the event: a resume starts after what was processed.
    this.events++;
    this.lastEventId = message.id;
    if (outcome === EVENT_TERMINAL) this.terminal = true;
    else if (outcome !== EVENT_KEEPALIVE) this.progress++;
  }
}

function oversized(cap: number, cause?: unknown): StreamProtocolError {
  return new StreamProtocolError(
    `stopstream: an SSE event exceeded ${cap} bytes; raise maxEventBytes if the provider sends ` +
      "events this large",
    { cause },
  );
}
