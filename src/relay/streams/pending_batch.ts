/**
 * The next batch of a resumable stream's events, encoded as they come: numbered from the next
 * id on, each event behind its `id:` line, in one UTF-8 buffer that is stored and sent as is
 * (no large string is ever built or converted). `EventLog` decides when a batch is written.
 *
 * @module
 */

import { eventEnd, idLineBytes, writeIdLine } from "./event_bytes.ts";

const encoder = new TextEncoder();

/**
 * The events waiting for the next write, numbered and encoded.
 *
 * @example
 * ```ts
 * const batch = new PendingBatch(1, 128 * 1024);
 * const { count, size } = batch.encode('data: {"choices":[]}\n\n');
 * batch.queue(count, size); // `id: 1`
 * store(batch.copy());
 * batch.clear();
 * ```
 */
export class PendingBatch {
  /** The id the next event gets. */
  next: number;
  /** The batch's bytes, id lines included (0: nothing waits). */
  bytes = 0;
  /** The id of the batch's first event. */
  first = 0;
  #buffer: Uint8Array;

  /** `next` is the first event's id; `capacity` the bytes the buffer starts with. */
  constructor(next: number, capacity: number) {
    this.next = next;
    this.#buffer = new Uint8Array(capacity);
  }

  /**
   * Encodes the events of `text`, each after its `id:` line, behind the batch without taking
   * them into it yet ({@linkcode PendingBatch.queue} does): returns how many events and bytes.
   * A forwarded batch holds many events: the text is encoded in one call, after room for their
   * id lines, and {@linkcode PendingBatch.#number} moves each event behind its id line. No
   * string is built or sliced per event.
   */
  encode(text: string): { count: number; size: number } {
    // Usually one event (a delta), or a forwarded batch of many; the room their id lines take.
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

  /** {@linkcode PendingBatch.encode} for events already UTF-8: copied once, never decoded. */
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

  /** Takes the `count` events (`size` bytes) just encoded into the batch. */
  queue(count: number, size: number): void {
    if (this.bytes === 0) this.first = this.next;
    this.bytes += size;
    this.next += count;
  }

  /** The batch's bytes, copied out (to be stored and kept while the buffer is reused). */
  copy(): Uint8Array {
    return this.#buffer.slice(0, this.bytes);
  }

  /** Empties the batch once it is written; the next event goes first in the buffer. */
  clear(): void {
    this.bytes = 0;
  }

  /**
   * Makes room behind the batch for `idBytes` of id lines and then `eventBytes` of events;
   * returns where the events go (after the room for their id lines).
   */
  #room(idBytes: number, eventBytes: number): number {
    const needed = this.bytes + idBytes + eventBytes;
    if (needed > this.#buffer.length) {
      const bigger = new Uint8Array(Math.max(needed, 2 * this.#buffer.length));
      bigger.set(this.#buffer.subarray(0, this.bytes));
      this.#buffer = bigger;
    }
    return this.bytes + idBytes;
  }

  /**
   * Writes each event of the UTF-8 at `from`…`end` behind its id line (digit by digit), from
   * the batch's end on, moving the event down in place; returns the bytes written. A move never
   * reaches bytes still to move: the id lines written so far fit in the room left.
   */
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
