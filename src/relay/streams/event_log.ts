/**
 * The events of one resumable stream, numbered and stored in batches, and what its readers
 * read from.
 *
 * Every SSE event gets `id: <n>`, counting from 1 without gaps. Events are written to storage
 * in batches, not one write per token: the first event after a quiet spell is written at once
 * (the time to first token does not change), later ones are gathered for up to `FLUSH_MS`, or
 * until `MAX_BATCH` bytes. A batch becomes visible to readers only once its write is durable,
 * so a reader who resumes never misses an event another reader was sent, even when the
 * Durable Object restarts in between: whatever any reader saw is in storage. Readers at the live
 * edge take the last few written batches from memory (the bytes just stored, not read back);
 * a reader further behind reads the stored rows, so memory holds a few batches per stream, not
 * the stream.
 *
 * @module
 */

import { eventStart } from "./event_bytes.ts";
import { PendingBatch } from "./pending_batch.ts";
import type { Batch, StreamStore } from "./stream_store.ts";

/** How long events wait for company before they are written (and sent) together. */
const FLUSH_MS = 50;
/** Flush at once when this many bytes wait (a fast upstream): rows stay far below 2 MB. */
const MAX_BATCH = 64 * 1024;
/** Written batches kept in memory for readers at the live edge (a few, not the stream). */
const RECENT = 8;
/** Progress comments kept at most (a few hundred retries' worth); later ones are not kept. */
const MAX_NOTES = 16 * 1024;

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
  /**
   * The progress comments (`x-stopstream-progress`) made before the first event, for readers
   * who start from the beginning. Narration, not the answer: never numbered (so
   * `Last-Event-ID` counts events only), never stored (a restarted object has none).
   */
  notes = "";
  #store: StreamStore;
  #maxBytes: number;
  /** The next batch, numbered and encoded as events come; it knows the next event id. */
  #batch: PendingBatch;
  #lastFlush = Number.NEGATIVE_INFINITY;
  /** When a joining reader last forced a write. */
  #lastForced = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Settles once everything written so far is visible. */
  #durable: Promise<void> = Promise.resolve();
  /** The sync under way, and the last batch written since it began. */
  #syncing: Promise<void> | undefined;
  #unsynced: { last: number; final: boolean } | undefined;
  #listeners = new Set<() => void>();
  #forgotten = false;
  /**
   * The last `RECENT` batches written, oldest first, visible or not yet: what a reader at the
   * live edge reads, so that a fast stream's readers never read storage back.
   */
  #recent: Batch[] = [];

  constructor(store: StreamStore, maxBytes: number, next: number) {
    this.#store = store;
    this.#maxBytes = maxBytes;
    this.#batch = new PendingBatch(next, 2 * MAX_BATCH);
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
    const { count, size } = this.#batch.encode(text);
    return this.#take(count, size);
  }

  /** Takes encoded events into the batch, within the byte limit; a full batch is written. */
  #take(count: number, size: number): boolean {
    const pending = this.#batch;
    if (this.bytes + pending.bytes + size > this.#maxBytes) return false;
    pending.queue(count, size);
    if (pending.bytes >= MAX_BATCH) this.#flush(false);
    return true;
  }

  /**
   * {@linkcode EventLog.append} for events that are UTF-8 already (a forwarded piece of the
   * upstream's body, as the relay would frame it): their bytes are stored, never encoded again.
   */
  appendBytes(bytes: Uint8Array): boolean {
    const { count, size } = this.#batch.encodeBytes(bytes);
    return this.#take(count, size);
  }

  /**
   * Adds a progress comment for readers, at once (nothing to make durable). Only before the
   * first event: a reader who resumes after an event gets events only.
   */
  note(text: string): void {
    if (text === "" || this.#batch.next !== 1 || this.notes.length + text.length > MAX_NOTES) {
      return;
    }
    this.notes += text;
    for (const wake of [...this.#listeners]) wake();
  }

  /**
   * Writes what is queued now if nothing was written for `FLUSH_MS`, else at the end of that
   * window (one timer at a time). Called when the upstream has nothing more parsed, so a
   * network chunk's events go out together.
   */
  flushSoon(): void {
    if (this.#batch.bytes === 0 || this.#timer !== undefined) return;
    const wait = this.#lastFlush + FLUSH_MS - Date.now();
    if (wait <= 0) this.#flush(false);
    else this.#timer = setTimeout(() => this.#flush(false), wait);
  }

  /**
   * Appends the final event (whatever the byte limit: it says how the stream ended), writes
   * everything at once and resolves when readers can see it.
   */
  close(text: string): Promise<void> {
    const { count, size } = this.#batch.encode(text);
    this.#batch.queue(count, size);
    this.#flush(true);
    return this.#durable;
  }

  /**
   * Calls `wake` whenever a batch becomes visible or the log ends; returns the unsubscribe. A
   * reader who joins gets what waits for the next write, and the next event, at once: a resume
   * should not wait out the batching window. That costs up to two writes, so it is done once
   * per window at most: readers who join in a burst (a client reconnecting in a loop) cost two
   * writes per `FLUSH_MS`, however many they are, and the later ones wait one window at most.
   */
  subscribe(wake: () => void): () => void {
    this.#listeners.add(wake);
    if (Date.now() - this.#lastForced >= FLUSH_MS) {
      this.#lastForced = Date.now();
      this.#flush(false);
      this.#lastFlush = Number.NEGATIVE_INFINITY; // and the next event too
    }
    return () => this.#listeners.delete(wake);
  }

  /** How many readers are attached (subscribed and not yet gone). */
  get readers(): number {
    return this.#listeners.size;
  }

  /**
   * The visible events after `after` as UTF-8, a few batches' worth (`undefined` when there
   * are none yet), and the id of the last one.
   */
  read(after: number): { bytes: Uint8Array | undefined; last: number } {
    if (this.#forgotten) return { bytes: undefined, last: after };
    const batches = this.#recentAfter(after) ?? this.#store.batchesAfter(after, this.lastVisible);
    if (batches.length === 0) return { bytes: undefined, last: after };
    const parts = batches.map((batch) =>
      batch.first > after ? batch.data : batch.data.subarray(eventStart(batch.data, after + 1))
    );
    let size = 0;
    for (const part of parts) size += part.byteLength;
    const bytes = parts.length === 1 ? parts[0] as Uint8Array : new Uint8Array(size);
    if (parts.length > 1) {
      let at = 0;
      for (const part of parts) {
        bytes.set(part, at);
        at += part.byteLength;
      }
    }
    return { bytes, last: (batches.at(-1) as { last: number }).last };
  }

  /**
   * The visible batches after `after` (a few) from memory, or `undefined` when memory does not
   * reach back to event `after + 1`: then the store has them.
   */
  #recentAfter(after: number): Batch[] | undefined {
    const recent = this.#recent;
    if (recent.length === 0 || (recent[0] as Batch).first > after + 1) return undefined;
    const found: Batch[] = [];
    for (const batch of recent) {
      if (batch.last > this.lastVisible || found.length === 8) break;
      if (batch.last > after) found.push(batch);
    }
    return found;
  }

  /** The stream was deleted: readers still attached end where they are. */
  forget(): void {
    this.#forgotten = true;
    this.ended = true;
    for (const wake of [...this.#listeners]) wake();
  }

  #flush(final: boolean): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = this.#batch;
    if (pending.bytes === 0) return;
    const last = pending.next - 1;
    const data = pending.copy();
    const batch = { first: pending.first, last, data };
    this.#store.append(batch);
    // The oldest goes (a reader that far behind reads storage): memory stays a few batches.
    if (this.#recent.push(batch) > RECENT) this.#recent.shift();
    this.bytes += data.byteLength;
    pending.clear();
    this.#lastFlush = Date.now();
    this.#unsynced = { last, final };
    this.#durable = this.#syncing ??= this.#sync();
  }

  /**
   * Makes written batches visible once they are durable. One `sync()` covers every write made
   * before it: writes that come while one runs wait for the next (group commit), so a slow
   * disk delays readers by one sync, not one per batch.
   */
  async #sync(): Promise<void> {
    try {
      while (this.#unsynced !== undefined) {
        const { last, final } = this.#unsynced;
        this.#unsynced = undefined;
        await this.#store.storage.sync?.();
        this.lastVisible = last;
        if (final) this.ended = true;
        for (const wake of [...this.#listeners]) wake();
      }
    } finally {
      this.#syncing = undefined;
    }
  }
}
