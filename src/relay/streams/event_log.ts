/**
 * The events of one resumable stream, numbered and stored in batches, and what its readers
 * read from.
 *
 * Every SSE event gets `id: <n>`, counting from 1 without gaps. Events are written to storage
 * in batches, not one write per token: the first event after a quiet spell is written at once
 * (the time to first token does not change), later ones are gathered for up to `FLUSH_MS`, or
 * until `MAX_BATCH` bytes. A batch becomes visible to readers only once its write is durable,
 * so a reader who resumes never misses an event another reader was sent, even when the
 * Durable Object restarts in between: whatever any reader saw is in storage.
 *
 * @module
 */

import type { Batch, StreamStore } from "./stream_store.ts";

/** How long events wait for company before they are written (and sent) together. */
const FLUSH_MS = 50;
/** Flush at once when this many bytes wait (a fast upstream): rows stay far below 2 MB. */
const MAX_BATCH = 64 * 1024;
const noop = (): void => {};

/**
 * The numbered, stored events of one stream.
 *
 * @example
 * ```ts
 * const log = new EventLog(store, 8 << 20, 1);
 * log.append('data: {"choices":[]}\n\n'); // numbered `id: 1`
 * log.flushSoon();
 * ```
 */
export class EventLog {
  /** Batches readers may read: stored, durable, in order. */
  readonly batches: Batch[] = [];
  /** Set once the batch holding the final event is visible. */
  ended = false;
  /** Stored bytes (UTF-8), numbered events included. */
  bytes = 0;
  #store: StreamStore;
  #maxBytes: number;
  /** The next event id. */
  #next: number;
  #pending = "";
  #pendingFirst = 0;
  #pendingBytes = 0;
  #lastFlush = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Writes become visible in order, each after the ones before it are durable. */
  #durable: Promise<void> = Promise.resolve();
  #listeners = new Set<() => void>();

  constructor(store: StreamStore, maxBytes: number, next: number) {
    this.#store = store;
    this.#maxBytes = maxBytes;
    this.#next = next;
  }

  /** The log of a stream stored earlier (by this object before a restart, or a finished one). */
  static restore(store: StreamStore, maxBytes: number, ended: boolean): EventLog {
    const batches = store.batches();
    const log = new EventLog(store, maxBytes, (batches.at(-1)?.last ?? 0) + 1);
    for (const batch of batches) {
      log.batches.push(batch);
      log.bytes += utf8Length(batch.text);
    }
    log.ended = ended;
    return log;
  }

  /** The id of the last event readers can see (0 before the first). */
  get lastVisible(): number {
    return this.batches.at(-1)?.last ?? 0;
  }

  /** The id the next event gets, less one: the last event numbered so far. */
  get lastNumbered(): number {
    return this.#next - 1;
  }

  /**
   * Numbers the events of `text` (whole `data:` events) and queues them for the next write.
   * Returns `false`, and keeps nothing, when they would take the stream past its byte limit.
   */
  append(text: string): boolean {
    const numbered = this.#number(text);
    const size = utf8Length(numbered.text);
    if (this.bytes + this.#pendingBytes + size > this.#maxBytes) return false;
    this.#queue(numbered, size);
    if (this.#pendingBytes >= MAX_BATCH) this.#flush(false);
    return true;
  }

  /**
   * Writes what is queued now if nothing was written for `FLUSH_MS`, else at the end of that
   * window (one timer at a time). Called when the upstream has nothing more parsed, so a
   * network chunk's events go out together.
   */
  flushSoon(): void {
    if (this.#pending === "" || this.#timer !== undefined) return;
    const wait = this.#lastFlush + FLUSH_MS - Date.now();
    if (wait <= 0) this.#flush(false);
    else this.#timer = setTimeout(() => this.#flush(false), wait);
  }

  /**
   * Appends the final event (whatever the byte limit: it says how the stream ended), writes
   * everything at once and resolves when readers can see it.
   */
  close(text: string): Promise<void> {
    const numbered = this.#number(text);
    this.#queue(numbered, utf8Length(numbered.text));
    this.#flush(true);
    return this.#durable;
  }

  /**
   * Calls `wake` whenever a batch becomes visible or the log ends; returns the unsubscribe. A
   * reader who joins gets what waits for the next write, and the next event, at once: a resume
   * should not wait out the batching window (it costs two writes per reader at most).
   */
  subscribe(wake: () => void): () => void {
    this.#listeners.add(wake);
    this.#flush(false);
    this.#lastFlush = Number.NEGATIVE_INFINITY; // and the next event too
    return () => this.#listeners.delete(wake);
  }

  /** Index of the first visible batch holding an event after `after` (`batches.length`: none). */
  indexAfter(after: number): number {
    let low = 0;
    let high = this.batches.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.batches[mid] as Batch).last <= after) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** The events after `after` of the batch at `index` (which must hold some). */
  textAfter(index: number, after: number): string {
    const batch = this.batches[index] as Batch;
    if (batch.first > after) return batch.text;
    // Every event starts with its `id:` line, and JSON data holds no raw newline.
    const at = batch.text.indexOf(`\n\nid: ${after + 1}\n`);
    return at < 0 ? "" : batch.text.slice(at + 2);
  }

  #number(text: string): { text: string; count: number } {
    let out = "";
    let id = this.#next;
    for (let start = 0; start < text.length;) {
      const end = text.indexOf("\n\n", start) + 2;
      out += `id: ${id++}\n${text.slice(start, end)}`;
      start = end;
    }
    return { text: out, count: id - this.#next };
  }

  #queue(numbered: { text: string; count: number }, size: number): void {
    if (this.#pending === "") this.#pendingFirst = this.#next;
    this.#pending += numbered.text;
    this.#pendingBytes += size;
    this.#next += numbered.count;
  }

  #flush(final: boolean): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending === "") return;
    const batch: Batch = { first: this.#pendingFirst, last: this.#next - 1, text: this.#pending };
    this.#store.append(batch);
    this.bytes += this.#pendingBytes;
    this.#pending = "";
    this.#pendingBytes = 0;
    this.#lastFlush = Date.now();
    const storage = this.#store.storage;
    this.#durable = this.#durable
      .then(() => storage.sync?.())
      .then(() => this.#publish(batch, final));
    this.#durable.catch(noop);
  }

  #publish(batch: Batch, final: boolean): void {
    this.batches.push(batch);
    if (final) this.ended = true;
    for (const wake of [...this.#listeners]) wake();
  }
}

/** Bytes of `text` in UTF-8, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
    } else if (code <= 0xdbff && code >= 0xd800 && isLowSurrogate(text.charCodeAt(i + 1))) {
      // A surrogate pair: 2 UTF-16 units, 4 bytes.
      bytes += 2;
      i++;
    } else {
      // 3 bytes (a lone surrogate too: it is sent as U+FFFD).
      bytes += 2;
    }
  }
  return bytes;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
