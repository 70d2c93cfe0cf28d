import { createParser, type EventSourceMessage, type ParseError } from "eventsource-parser";
import {
  CONNECTION_LOST,
  MALFORMED_STREAM,
  malformedMessage,
  oversizedMessage,
} from "../core/error_messages.ts";
import { ConnectionError, StreamProtocolError } from "../core/error_classes.ts";
import { isStopstreamError, isStreamProtocolError } from "../core/error_guards.ts";
import { EVENT_KEEPALIVE, EVENT_TERMINAL, type StreamDecoder } from "../protocols/protocol.ts";

const BODY_START = /^\s*[[{<]/;
const LF = 10;
const CR = 13;
const COLON = 58;
// Charged per pending line beyond its characters: V8 keeps each `data:` append as a cons-string
// node plus a string, so empty lines would grow the heap far beyond the bytes on the wire.
const LINE_COST = 64;
const FIRST_DATA_MAX = 65_536;

/** A protocol's decoder, or a wrapper in front of one that also sees each chunk's text. */
export interface FeedDecoder extends StreamDecoder {
  /** The text of each chunk, before its events are parsed (the relay's fast path). */
  onText?(text: string): void;
}

/** Callbacks are created once per attempt; per event the only work is the decoder's. */
export class SseFeed {
  readonly decoder: FeedDecoder;
  terminal = false;
  progress = 0;
  /** Events decoded, on every connection this feed read (a resumed stream goes on counting). */
  events = 0;
  /** The first event's data, unless huge: which protocol the stream speaks, if it gives nothing. */
  firstData: string | undefined = undefined;
  /** The `id:` of the last event decoded: where a resume starts. */
  lastEventId: string | undefined = undefined;
  /** Non-SSE lines, kept (up to 4 KiB) while no event has come: see `strayBody`. */
  #unread = "";
  #parser;
  #budget: EventBudget;
  #checkFirst: ((message: EventSourceMessage) => void) | undefined = undefined;

  constructor(decoder: FeedDecoder, maxEventBytes: number) {
    this.decoder = decoder;
    this.#budget = new EventBudget(maxEventBytes);
    this.#parser = createParser({
      onEvent: (message: EventSourceMessage) => this.#onEvent(message),
      // Bad lines are ignored, as the SSE spec says. The parser's `maxBufferSize` is unused: it
      // counts only data characters, and EventBudget (counting everything) refuses first.
      onError: (error: ParseError) => {
        if (this.events === 0 && this.#unread.length < 4096) {
          this.#unread += `${(error.line ?? "").slice(0, 4096)}\n`;
        }
      },
    });
  }

  feed(text: string): void {
    if (text.length === 0) return;
    // Counted before parsing, so an oversized event is refused before the parser holds it.
    this.#budget.measure(text);
    this.decoder.onText?.(text);
    this.#parser.feed(text);
  }

  /** The body, if it held no events and begins as JSON or HTML (else: maybe a cut connection). */
  strayBody(): string | undefined {
    return this.events === 0 && BODY_START.test(this.#unread) ? this.#unread : undefined;
  }

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

  /** An event half-received on the old connection is dropped (the server resends it whole). */
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
    if (this.events === 0 && message.data.length <= FIRST_DATA_MAX) this.firstData = message.data;
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

// What the parser buffers for the pending event: every character since the last blank line, plus
// LINE_COST per line. A finished comment line weighs nothing: the parser keeps none of it.
class EventBudget {
  readonly cap: number;
  #pending = 0;
  #partial = 0;
  /** The line still being read began with `:`. */
  #comment = false;
  /** The last chunk ended with CR: a LF starting the next one completes that line ending. */
  #afterCR = false;

  constructor(cap: number) {
    this.cap = cap;
  }

  measure(text: string): void {
    // Fast path (no CR): no event before the chunk's last blank line can weigh more than
    // pending + (1 + LINE_COST) × length, so within the cap only what follows it is counted.
    if (
      !this.#afterCR && this.#pending + text.length * (1 + LINE_COST) <= this.cap &&
      text.indexOf("\r") === -1
    ) {
      const blank = text.lastIndexOf("\n\n");
      if (blank !== -1) return this.#count(text, blank + 2, 0, 0, false);
      if (this.#partial === 0 && text.charCodeAt(0) === LF) {
        return this.#count(text, 1, 0, 0, false);
      }
    }
    this.#count(text, 0, this.#pending, this.#partial, this.#comment);
  }

  #count(text: string, i: number, pending: number, partial: number, comment: boolean): void {
    const length = text.length;
    if (this.#afterCR) {
      this.#afterCR = false;
      if (text.charCodeAt(i) === LF) i++;
    }
    let cr = text.indexOf("\r", i);
    while (i < length) {
      if (partial === 0) comment = text.charCodeAt(i) === COLON;
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
      } else if (comment) {
        if (pending + end - i + LINE_COST > this.cap) throw oversized(this.cap);
        pending -= partial; // what was counted of it while it arrived
        partial = 0;
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
    this.#comment = comment;
  }
}

function oversized(cap: number): StreamProtocolError {
  return new StreamProtocolError(oversizedMessage("an SSE event", cap));
}
