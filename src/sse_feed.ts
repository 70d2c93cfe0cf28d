/**
 * eventsource-parser wired to a protocol decoder: text in, decoder calls out, plus the state
 * the reading loop needs (terminal seen, progress count). Pure: no I/O, no timers.
 *
 * @module
 */

import { createParser, type EventSourceMessage, type ParseError } from "eventsource-parser";
import {
  CONNECTION_LOST,
  MALFORMED_STREAM,
  malformedMessage,
  oversizedMessage,
} from "./error_messages.ts";
import { ConnectionError, StreamProtocolError } from "./error_classes.ts";
import { isStopstreamError, isStreamProtocolError } from "./error_guards.ts";
import { EVENT_KEEPALIVE, EVENT_TERMINAL, type StreamDecoder } from "./protocols/protocol.ts";

/** How a JSON or HTML body begins (after blanks). */
const BODY_START = /^\s*[[{<]/;
const LF = 10;
const CR = 13;
/**
 * What holding one line of a pending event costs beyond its characters. The parser appends
 * each `data:` line to the event's data, and V8 keeps every append as a cons-string node (32
 * bytes) plus, for most values, a string of its own (another 32): measured, an empty `data:`
 * line costs 32 bytes of heap for 6 on the wire. Without this charge, 12 million of them (72 MB,
 * but only 12 M characters of data) took the heap past 1 GB.
 */
const LINE_COST = 64;

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
  /** Lines that are not SSE, kept (up to 4 KiB) while no event has come: see `strayBody`. */
  #unread = "";
  #parser;
  #budget: EventBudget;
  /** Set by {@linkcode SseFeed.reconnect}: sees the first event of the new connection. */
  #checkFirst: ((message: EventSourceMessage) => void) | undefined = undefined;

  constructor(decoder: StreamDecoder, maxEventBytes: number) {
    this.decoder = decoder;
    this.#budget = new EventBudget(maxEventBytes);
    this.#parser = createParser({
      onEvent: (message: EventSourceMessage) => this.#onEvent(message),
      // Unknown fields and bad `retry:` lines are ignored, as the SSE spec says. The parser's
      // own `maxBufferSize` is not used: it counts only data characters, and the budget below
      // (which counts everything) has already refused whatever it would catch.
      onError: (error: ParseError) => {
        if (this.events === 0 && this.#unread.length < 4096) {
          this.#unread += `${(error.line ?? "").slice(0, 4096)}\n`;
        }
      },
    });
  }

  /** Parses one chunk of text; throws `StreamProtocolError` once an event exceeds the cap. */
  feed(text: string): void {
    if (text.length === 0) return;
    // Measured before parsing, so an oversized event is refused before the parser holds it.
    this.#budget.measure(text);
    this.decoder.onText?.(text);
    this.#parser.feed(text);
  }

  /**
   * What the body held instead of events, if it held none and what it held begins as a JSON or
   * HTML body does (an error object without `data:`, a page); `undefined` otherwise: an unknown
   * field and then the end may still be a cut connection.
   */
  strayBody(): string | undefined {
    return this.events === 0 && BODY_START.test(this.#unread) ? this.#unread : undefined;
  }

  /** Flushes a final event that the server did not terminate with a blank line. */
  end(rest: string): void {
    this.#budget.measure(rest);
    try {
      this.#parser.feed(rest + "\n\n");
    } catch (error) {
      // A half-written event at the end of the body is a cut connection, not bad data.
      if (isStreamProtocolError(error)) {
        throw new ConnectionError(CONNECTION_LOST, { cause: error });
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
    this.#budget = new EventBudget(this.#budget.cap);
    this.#checkFirst = checkFirst;
  }

  #onEvent(message: EventSourceMessage): void {
    if (this.terminal) return;
    if (this.#checkFirst !== undefined) {
      const check = this.#checkFirst;
      this.#checkFirst = undefined;
      check(message);
    }
    let outcome;
    try {
      outcome = this.decoder.onEvent(message.event, message.data);
    } catch (error) {
      // A shape the decoder could not read (`"choices": [null]`) is bad data, typed as such.
      throw isStopstreamError(error) ? error : new StreamProtocolError(
        malformedMessage(MALFORMED_STREAM, message.data),
        { cause: error },
      );
    }
    // Recorded once the decoder has taken the event: a resume starts after what was processed.
    this.events++;
    this.lastEventId = message.id;
    if (outcome === EVENT_TERMINAL) this.terminal = true;
    else if (outcome !== EVENT_KEEPALIVE) this.progress++;
  }
}

/**
 * The size of the event being received, as the parser will buffer it: every character of every
 * line since the last blank line (`data:`, `event:`, `id:`, comments, unknown fields alike) plus
 * {@linkcode LINE_COST} per line. An event that arrives whole inside one chunk is measured too.
 */
class EventBudget {
  readonly cap: number;
  /** Weight of the pending event so far, its unfinished last line included. */
  #pending = 0;
  /** Characters of the unfinished line the last chunk ended with (0: at a line start). */
  #partial = 0;
  /** The last chunk ended with CR: a LF starting the next one completes that line ending. */
  #afterCR = false;

  constructor(cap: number) {
    this.cap = cap;
  }

  measure(text: string): void {
    // The usual chunk (no CR, ends on an event boundary) costs two native scans and no loop:
    // a line is at least its line ending, so no event before the chunk's last blank line can
    // weigh more than pending + (1 + LINE_COST) × length; within the cap, only what follows
    // that blank line needs counting line by line.
    if (
      !this.#afterCR && this.#pending + text.length * (1 + LINE_COST) <= this.cap &&
      text.indexOf("\r") === -1
    ) {
      const blank = text.lastIndexOf("\n\n");
      if (blank !== -1) return this.#count(text, blank + 2, 0, 0);
      if (this.#partial === 0 && text.charCodeAt(0) === LF) return this.#count(text, 1, 0, 0);
    }
    this.#count(text, 0, this.#pending, this.#partial);
  }

  /** Counts `text` from `i` line by line: one `indexOf` per line, no allocation. */
  #count(text: string, i: number, pending: number, partial: number): void {
    const length = text.length;
    if (this.#afterCR) {
      this.#afterCR = false;
      if (text.charCodeAt(i) === LF) i++;
    }
    // CR line endings are rare: one scan says whether this chunk needs looking for them.
    let cr = text.indexOf("\r", i);
    while (i < length) {
      let end = text.indexOf("\n", i);
      if (cr !== -1 && cr < i) cr = text.indexOf("\r", i);
      if (cr !== -1 && (end === -1 || cr < end)) end = cr;
      if (end === -1) {
        partial += length - i;
        pending += length - i;
        break;
      }
      if (end === i && partial === 0) {
        pending = 0; // a blank line: the event is dispatched and the parser forgets it
      } else {
        pending += end - i + LINE_COST;
        partial = 0;
      }
      if (pending > this.cap) throw oversized(this.cap);
      if (text.charCodeAt(end) === CR) {
        if (end + 1 === length) this.#afterCR = true;
        else if (text.charCodeAt(end + 1) === LF) end++;
      }
      i = end + 1;
    }
    if (pending > this.cap) throw oversized(this.cap);
    this.#pending = pending;
    this.#partial = partial;
  }
}

function oversized(cap: number): StreamProtocolError {
  return new StreamProtocolError(oversizedMessage("an SSE event", cap));
}
