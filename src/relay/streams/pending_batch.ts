/** The next batch of events, numbered in one UTF-8 buffer that is stored and sent as is. */

const encoder = new TextEncoder();
const NEWLINE = 10;
const ID_PREFIX = encoder.encode("id: ");

/** Where the event at `from` ends (after its `\n\n`), or `end`; UTF-8 0x0A is always a newline. */
function eventEnd(buffer: Uint8Array, from: number, end: number): number {
  let stop = buffer.indexOf(NEWLINE, from);
  while (stop >= 0 && stop + 1 < end && buffer[stop + 1] !== NEWLINE) {
    stop = buffer.indexOf(NEWLINE, stop + 1);
  }
  return stop < 0 || stop + 1 >= end ? end : stop + 2;
}

function idLineBytes(id: number): number {
  let digits = 1;
  for (let n = id; n >= 10; n = Math.floor(n / 10)) digits++;
  return 5 + digits;
}

/** Writes `id: <id>\n` at `at`; returns where it ends. */
function writeIdLine(buffer: Uint8Array, at: number, id: number): number {
  const end = at + idLineBytes(id) - 1;
  buffer.set(ID_PREFIX, at);
  for (let i = end - 1, n = id; i >= at + 4; i--, n = Math.floor(n / 10)) buffer[i] = 48 + n % 10;
  buffer[end] = NEWLINE;
  return end + 1;
}

export class PendingBatch {
  next: number;
  bytes = 0;
  first = 0;
  #buffer: Uint8Array;

  constructor(next: number, capacity: number) {
    this.next = next;
    this.#buffer = new Uint8Array(capacity);
  }

  /** Encodes behind the batch (`queue` takes it in): one `encodeInto`, no string per event. */
  encode(text: string): { count: number; size: number } {
    let count = 0;
    let idBytes = 0;
    for (let start = 0; start < text.length; count++) {
      const end = text.indexOf("\n\n", start);
      start = end < 0 ? text.length : end + 2;
      idBytes += idLineBytes(this.next + count);
    }
    // Room for the worst case: 3 bytes per UTF-16 unit.
    const base = this.#room(idBytes, text.length * 3);
    const end = base + encoder.encodeInto(text, this.#buffer.subarray(base)).written;
    return { count, size: this.#number(base, end) };
  }

  encodeBytes(bytes: Uint8Array): { count: number; size: number } {
    let count = 0;
    let idBytes = 0;
    for (let from = 0; from < bytes.length; count++) {
      from = eventEnd(bytes, from, bytes.length);
      idBytes += idLineBytes(this.next + count);
    }
    const base = this.#room(idBytes, bytes.length);
    this.#buffer.set(bytes, base);
    return { count, size: this.#number(base, base + bytes.length) };
  }

  queue(count: number, size: number): void {
    if (this.bytes === 0) this.first = this.next;
    this.bytes += size;
    this.next += count;
  }

  /** A copy: the stored batch outlives the reused buffer. */
  copy(): Uint8Array {
    return this.#buffer.slice(0, this.bytes);
  }

  #room(idBytes: number, eventBytes: number): number {
    const needed = this.bytes + idBytes + eventBytes;
    if (needed > this.#buffer.length) {
      const bigger = new Uint8Array(Math.max(needed, 2 * this.#buffer.length));
      bigger.set(this.#buffer.subarray(0, this.bytes));
      this.#buffer = bigger;
    }
    return this.bytes + idBytes;
  }

  /** Moves each event down behind its id line, in place: the room left holds the id lines. */
  #number(from: number, end: number): number {
    const buffer = this.#buffer;
    let at = this.bytes;
    for (let id = this.next; from < end; id++) {
      at = writeIdLine(buffer, at, id);
      const stop = eventEnd(buffer, from, end);
      buffer.copyWithin(at, from, stop);
      at += stop - from;
      from = stop;
    }
    return at - this.bytes;
  }
}
