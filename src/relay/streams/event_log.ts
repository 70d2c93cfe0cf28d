/**
 * The events of one resumable stream, numbered and stored in batches, and what its readers
 * read from.
 *
 * Every SSE event gets `id: <n>`, counting from 1 without gaps. Events are written to storage
 * in batches, not one write per token: the first event after a quiet spell is written at once
 * (the time to first token does not change), later ones are gathered for up to `FLUSH_MS`, or
 * until `MAX_BATCH` bytes. A batch becomes visible to readers only once its write is durable,
 * so a reader who resumes never misses an event another reader was sent, even when the
 * Durable Object restarts in between: whatever any reader saw is in storage. Readers read the
 * stored rows, so memory holds one batch per stream, not the stream.
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
  /** The id of the last event readers may read: stored and durable (0 before the first). */
  lastVisible = 0;
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
  #forgotten = false;

  constructor(store: StreamStore, maxBytes: number, next: number) {
    this.#store = store;
    this.#maxBytes = maxBytes;
    this.#next = next;
  }

  /** The log of a stream stored earlier (by this object before a restart, or a finished one). */
  static restore(store: StreamStore, maxBytes: number, ended: boolean): EventLog {
    const { last, bytes } = store.extent();
    const log = new EventLog(store, maxBytes, last + 1);
    log.lastVisible = last;
    log.bytes = bytes;
    log.ended = ended;
    return log;
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

  /**
   * The visible events after `after`, a few batches' worth (`""` when there are none yet), and
   * the id of the last one.
   */
  read(after: number): { text: string; last: number } {
    if (this.#forgotten) return { text: "", last: after };
    let text = "";
    let last = after;
    for (const batch of this.#store.batchesAfter(after, this.lastVisible)) {
      // Every event starts with its `id:` line, and JSON data holds no raw newline.
      const at = batch.first > after ? 0 : batch.text.indexOf(`\n\nid: ${after + 1}\n`) + 2;
      text += batch.text.slice(at);
      last = batch.last;
    }
    return { text, last };
  }

  /** The stream was deleted: readers still attached end where they are. */
  forget(): void {
    this.#forgotten = true;
    this.ended = true;
    for (const wake of [...this.#listeners]) wake();
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
    this.lastVisible = batch.last;
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
