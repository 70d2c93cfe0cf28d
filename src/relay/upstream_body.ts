/**
 * How the relay reads an upstream event stream: up to 64 KiB at a time, handed on to the client
 * in pieces that hold whole events, each piece described on a {@linkcode PieceTap} so that the
 * fast path (forward.ts) can write a piece it forwarded whole as the bytes it came as.
 *
 * @module
 */

/** The most an upstream event stream is read at once. */
const READ_BYTES = 64 * 1024;
/**
 * What a read at an event's start waits for while {@linkcode PieceTap.coalesce} is set. workerd
 * hands each chunk of a chunked body over in two reads, the first holding what its 32-byte read
 * of the chunk's size line took of the data (26–28 bytes for chunks under 64 KiB), and each read
 * costs the isolate about as much as the relay's whole work on an event (bench/notes.md).
 * Waiting, in the runtime, for 32 bytes makes it one read; and no event the fast path forwards
 * is shorter (`data: {"choices":[{"delta":{}}]}` and its blank line are 35 bytes).
 */
const MIN_EVENT_BYTES = 32;
/** The two usual read options, made once (a read is made per event). */
const AT_EVENT_START = { min: MIN_EVENT_BYTES };
const ANY_BYTES = { min: 1 };
const LF = 10;
const CR = 13;

/**
 * What the relay's reads of an upstream event stream say about the piece they handed on last.
 *
 * @example
 * ```ts
 * const tap: PieceTap = { seq: 0, bytes: undefined, coalesce: false, reads: 0 };
 * ```
 */
export interface PieceTap {
  /** Counts the pieces handed on: a new value, a new piece. */
  seq: number;
  /** The piece, when it holds whole events only: it begins and ends where events do. */
  bytes: Uint8Array | undefined;
  /**
   * Set by the fast path (forward.ts) while it forwards content, whose events are long: a read
   * at an event's start then waits for at least 32 bytes or the body's end. Cleared on any other
   * event, so what ends an answer (a finish reason, usage, `[DONE]`) is never waited on. While it
   * is set, only an event shorter than 32 bytes followed by silence waits for more: a keep-alive
   * comment, which is not progress anyway.
   */
  coalesce: boolean;
  /** Counts the reads of the upstream body (tests check one read per forwarded event). */
  reads: number;
  /**
   * Set for an answer the relay holds whole (`stream: false`): once the bytes handed on of one
   * response pass `limit`, `onLimit` is called (once per piece after that).
   */
  limit?: number;
  onLimit?: () => void;
  /** The bytes handed on so far of the latest response, counted only while a `limit` is set. */
  total?: number;
}

/** A BYOB read with the `min` option (WHATWG Streams; not in TypeScript's DOM types yet). */
type ReadAtLeast = (
  view: Uint8Array,
  options: { min: number },
) => Promise<ReadableStreamReadResult<Uint8Array>>;

/**
 * `response` with its event stream read up to 64 KiB at a time and handed on in whole events.
 *
 * A Worker's default reader gives a fetch body over in pieces of at most 4 KiB, and each piece
 * costs the isolate more than the events in it: a 100k-delta stream took 6,500 reads and 2.5 µs
 * of CPU per event so, against 800 reads and 0.5 µs with 64 KiB reads (bench/notes.md). A BYOB
 * reader fills a larger buffer with whatever has arrived, no later than a default read would
 * return. Whatever ends inside an event waits for the rest of it: workerd hands each chunk of a
 * chunked body over in two reads (the first of a few dozen bytes), and a full buffer's last,
 * unfinished event starts the next piece — the client could not use a part of an event anyway.
 * Only an event longer than the buffer goes on in parts. A body that cannot be read so (not a
 * byte stream: the in-process demo, a test's) is left as it is, and so is anything but a 200
 * event stream — only counted, while a `limit` is set (a 200 JSON answer included).
 *
 * Each piece is described on `tap` as it is handed on. The client parses a piece whole before
 * it asks for the next (nothing is read ahead: a piece is read when it is asked for), so
 * whoever sees its events sees `tap` describe their piece.
 *
 * The body handed on is a reader, not a `ReadableStream`: an object whose `getReader()` gives
 * `read()` and `cancel()`, all the client's transport calls (and `cancel()` on the body). A JS
 * `ReadableStream` between the fetch body and the client made workerd keep every call alive
 * whose caller left while a read of it waited for the upstream: workerd drops such a request
 * without cancelling anything, and the pending read of a JS stream stays reachable from the
 * runtime, with the whole call behind it (0.2 MiB of heap per 300 streams, bench/notes.md).
 * Reads of the fetch body itself, awaited from plain functions, do not hold the call so.
 *
 * @example
 * ```ts
 * const tap: PieceTap = { seq: 0, bytes: undefined, coalesce: false, reads: 0 };
 * const response = readInPieces(await fetch(url, init), tap);
 * ```
 */
export function readInPieces(response: Response, tap: PieceTap): Response {
  const { body } = response;
  const type = response.headers.get("content-type") ?? "";
  if (body === null || response.status !== 200) return response;
  // The limit is per answer: a retry starts over, and what the abandoned attempt held is gone.
  tap.total = 0;
  if (!/event-stream/i.test(type)) {
    // A whole answer (the one request of an upstream that will not stream) counts as well.
    return tap.limit === undefined ? response : counted(response, body, tap);
  }
  let reader: ReadableStreamBYOBReader;
  try {
    reader = body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream (an injected fetch's): read as it comes, but a limit still holds.
    return tap.limit === undefined ? response : counted(response, body, tap);
  }
  const readAtLeast = reader.read as unknown as ReadAtLeast;
  let buffer = new ArrayBuffer(READ_BYTES);
  /** Bytes at the start of `buffer` not handed on yet (an event's start). */
  let filled = 0;
  // Whether the next byte starts an event: not after an event longer than the buffer, whose
  // end this side could then miss (its blank line may straddle two reads).
  let atEventStart = true;

  /** Hands on the first `length` bytes; what follows them stays at the buffer's start. */
  const handOn = (length: number, whole: boolean): ReadableStreamReadResult<Uint8Array> => {
    const rest = filled - length;
    let piece: Uint8Array;
    if (length > READ_BYTES / 2) {
      // Mostly full: the buffer itself goes, and a new one takes what follows.
      piece = new Uint8Array(buffer, 0, length);
      const next = new ArrayBuffer(READ_BYTES);
      new Uint8Array(next).set(new Uint8Array(buffer, length, rest));
      buffer = next;
    } else {
      piece = new Uint8Array(buffer, 0, length).slice();
      new Uint8Array(buffer).copyWithin(0, length, filled);
    }
    filled = rest;
    if (tap.limit !== undefined) count(tap, length);
    tap.seq++;
    tap.bytes = whole ? piece : undefined;
    return { done: false, value: piece };
  };

  let ended = false;
  const read = async (): Promise<ReadableStreamReadResult<Uint8Array>> => {
    for (;;) {
      if (ended) return { done: true, value: undefined };
      const options = !tap.coalesce || filled >= MIN_EVENT_BYTES
        ? ANY_BYTES
        : filled === 0
        ? AT_EVENT_START
        : { min: MIN_EVENT_BYTES - filled };
      tap.reads++;
      const { done, value } = await readAtLeast.call(
        reader,
        new Uint8Array(buffer, filled),
        options,
      );
      if (value !== undefined) {
        // A BYOB read transfers the buffer and returns it with the bytes in it.
        buffer = value.buffer as ArrayBuffer;
        filled += value.byteLength;
      }
      if (done) {
        ended = true;
        if (filled > 0) return handOn(filled, false);
        continue;
      }
      const bytes = new Uint8Array(buffer, 0, filled);
      const ends = endsEvent(bytes, filled);
      // The rest of the event is on its way (what continues an overlong one goes on at once).
      if (!ends && atEventStart && filled < READ_BYTES) continue;
      // Whole events go on, and what follows the last of them waits for its rest; without any
      // event's end here (an event longer than the buffer), everything goes on.
      const cut = ends ? filled : lastEventEnd(bytes);
      const whole = atEventStart && cut > 0;
      atEventStart = cut > 0;
      return handOn(cut > 0 ? cut : filled, whole);
    }
  };
  const cancel = (reason?: unknown): Promise<void> => reader.cancel(reason);
  const pieces = { getReader: () => ({ read, cancel }), cancel };
  const inPieces = new Response(null, response);
  // Only what the transport uses: see above why this is not a ReadableStream.
  Object.defineProperty(inPieces, "body", { value: pieces });
  return inPieces;
}

/**
 * Whether the first `length` of `bytes` end where an event does: their last line terminator
 * (CRLF, LF or CR) ends an empty line, i.e. comes right after another one.
 */
function endsEvent(bytes: Uint8Array, length: number): boolean {
  let i = length - 1;
  const last = bytes[i];
  if (last === LF) {
    if (bytes[i - 1] === CR) i--; // CRLF is one terminator
  } else if (last !== CR) {
    return false;
  }
  const before = bytes[i - 1];
  return i > 0 && (before === LF || before === CR);
}

/**
 * The length of the longest start of `bytes` that ends where an event does (at a LF: a stream
 * that ends its lines with a lone CR is simply not cut so), or 0.
 */
function lastEventEnd(bytes: Uint8Array): number {
  for (let at = bytes.lastIndexOf(LF); at > 0; at = bytes.lastIndexOf(LF, at - 1)) {
    if (endsEvent(bytes, at + 1)) return at + 1;
  }
  return 0;
}

/** `response` with its body counted against `tap.limit` chunk by chunk. */
function counted(response: Response, body: ReadableStream<Uint8Array>, tap: PieceTap): Response {
  const counting = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      count(tap, chunk.byteLength);
      controller.enqueue(chunk);
    },
  });
  return new Response(body.pipeThrough(counting), response);
}

/** Adds `bytes` to what `tap` has handed on of this response; past its limit, says so. */
function count(tap: PieceTap, bytes: number): void {
  tap.total = (tap.total ?? 0) + bytes;
  if (tap.total > tap.limit!) tap.onLimit?.();
}
