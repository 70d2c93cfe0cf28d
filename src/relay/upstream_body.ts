const READ_BYTES = 64 * 1024;
/** workerd splits a chunk in two reads unless `min` ≥ 32; no forwarded event is shorter. */
const MIN_EVENT_BYTES = 32;
/** Made once: a read is made per event. */
const AT_EVENT_START = { min: MIN_EVENT_BYTES };
const ANY_BYTES = { min: 1 };
const LF = 10;
const CR = 13;

/** What the reads say about the piece handed on last, for the fast path (forward.ts). */
export interface PieceTap {
  /** A new value, a new piece. */
  seq: number;
  /** Only when the piece begins and ends where events do. */
  bytes: Uint8Array | undefined;
  /** Set while the fast path forwards content, so what ends an answer is never waited on. */
  coalesce: boolean;
  /** Reads of the upstream body (tests check one per forwarded event). */
  reads: number;
  /** For an answer held whole (`stream: false`): past it, `onLimit` is called once per piece. */
  limit?: number;
  onLimit?: () => void;
  /** Counted only while a `limit` is set. */
  total?: number;
}

/** A BYOB reader with `min` (WHATWG Streams), not in TypeScript's DOM types yet. */
interface ReaderAtLeast {
  read(
    view: Uint8Array<ArrayBuffer>,
    options: { min: number },
  ): Promise<ReadableStreamReadResult<Uint8Array<ArrayBuffer>>>;
  cancel(reason?: unknown): Promise<void>;
}

/**
 * 64 KiB BYOB reads handed on in whole events (a Worker's 4 KiB reads cost more than their
 * events); nothing read ahead, so `tap` describes the piece being seen. A bare reader, not a
 * `ReadableStream`: workerd keeps such a stream's pending read, and the call, alive.
 */
export function readInPieces(response: Response, tap: PieceTap): Response {
  const { body } = response;
  const type = response.headers.get("content-type") ?? "";
  if (body === null || response.status !== 200) return response;
  // The limit is per answer: a retry starts over, and what the abandoned attempt held is gone.
  tap.total = 0;
  if (!/event-stream/i.test(type)) {
    return tap.limit === undefined ? response : counted(response, body, tap);
  }
  let reader: ReaderAtLeast;
  try {
    reader = body.getReader({ mode: "byob" });
  } catch {
    // Not a byte stream (an injected fetch's), but a limit still holds.
    return tap.limit === undefined ? response : counted(response, body, tap);
  }
  let buffer = new ArrayBuffer(READ_BYTES);
  /** Bytes at the start of `buffer` not handed on yet (an event's start). */
  let filled = 0;
  // Not after an event longer than the buffer: its blank line may straddle two reads.
  let atEventStart = true;

  const handOn = (length: number, whole: boolean): ReadableStreamReadResult<Uint8Array> => {
    const rest = filled - length;
    let piece: Uint8Array;
    if (length > READ_BYTES / 2) {
      // Mostly full: hand on the buffer itself rather than copy it.
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
      const { done, value } = await reader.read(
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
      // The rest of the event is on its way: the client could not use a part of it anyway.
      if (!ends && atEventStart && filled < READ_BYTES) continue;
      // No event's end at all (an event longer than the buffer): everything goes on.
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

/** An event ends with an empty line; a line terminator is CRLF, LF or CR. */
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

/** Cuts only at a LF: a stream that ends its lines with a lone CR is not cut. */
function lastEventEnd(bytes: Uint8Array): number {
  for (let at = bytes.lastIndexOf(LF); at > 0; at = bytes.lastIndexOf(LF, at - 1)) {
    if (endsEvent(bytes, at + 1)) return at + 1;
  }
  return 0;
}

function counted(response: Response, body: ReadableStream<Uint8Array>, tap: PieceTap): Response {
  const counting = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      count(tap, chunk.byteLength);
      controller.enqueue(chunk);
    },
  });
  return new Response(body.pipeThrough(counting), response);
}

function count(tap: PieceTap, bytes: number): void {
  tap.total = (tap.total ?? 0) + bytes;
  if (tap.total > tap.limit!) tap.onLimit?.();
}
