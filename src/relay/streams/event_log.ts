// A resumable stream's events, numbered from 1 and stored in batches. A batch is visible to readers
// only once durable, so whatever any reader saw survives a restart of the Durable Object.

import { PendingBatch } from "./pending_batch.ts";
import type { Batch, StreamStore } from "./stream_store.ts";

/** Batching window: events after the first of a quiet spell wait up to this to share a write. */
const FLUSH_MS = 50;
/** Write at once when this many bytes wait: rows stay far below SQLite's 2 MB row limit. */
const MAX_BATCH = 64 * 1024;
/** Batches kept in memory for readers at the live edge; readers further behind read storage. */
const RECENT = 8;
/** Progress comments kept at most (a few hundred retries' worth). */
const MAX_NOTES = 16 * 1024;

const encoder = new TextEncoder();

export class EventLog {
  /** The last event readers may read: stored and durable (0: none). */
  lastVisible = 0;
  /** Set once the batch holding the final event is visible. */
  ended = false;
  /** Stored bytes, id lines included. */
  bytes = 0;
  /** Progress comments from before the first event: not numbered, not stored. */
  notes = "";
  /** When the last reader left (or the log began, before its first): for the unread bound. */
  unreadSince = Date.now();
  /** Called when the last reader leaves. */
  onUnread: (() => void) | undefined;
  /** Whether the stream was deleted (expired) under its readers. */
  forgotten = false;
  #store: StreamStore;
  #maxBytes: number;
  #batch: PendingBatch;
  #lastFlush = Number.NEGATIVE_INFINITY;
  #lastForced = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Settles once everything written so far is visible. */
  #durable: Promise<void> = Promise.resolve();
  #syncing: Promise<void> | undefined;
  #unsynced: { last: number; final: boolean } | undefined;
  #listeners = new Set<() => void>();
  /** The last `RECENT` batches written, oldest first, visible or not yet. */
  #recent: Batch[] = [];

  constructor(store: StreamStore, maxBytes: number, next: number) {
    this.#store = store;
    this.#maxBytes = maxBytes;
    this.#batch = new PendingBatch(next, 2 * MAX_BATCH);
  }

  /** The log of a stream this instance did not start: it only ends, so it has no byte limit. */
  static restore(store: StreamStore, ended: boolean): EventLog {
    const { last, bytes } = store.extent();
    const log = new EventLog(store, Number.POSITIVE_INFINITY, last + 1);
    log.lastVisible = last;
    log.bytes = bytes;
    log.ended = ended;
    return log;
  }

  /** Returns `false`, and keeps nothing, when the events would pass the byte limit. */
  append(events: string | Uint8Array): boolean {
    const pending = this.#batch;
    const { count, size } = typeof events === "string"
      ? pending.encode(events)
      : pending.encodeBytes(events);
    if (this.bytes + pending.bytes + size > this.#maxBytes) return false;
    pending.queue(count, size);
    if (pending.bytes >= MAX_BATCH) this.#flush(false);
    return true;
  }

  /** Only before the first event: a reader who resumes after an event gets events only. */
  note(text: string): void {
    if (text === "" || this.#batch.next !== 1 || this.notes.length + text.length > MAX_NOTES) {
      return;
    }
    this.notes += text;
    for (const wake of [...this.#listeners]) wake();
  }

  /** Called when the upstream has nothing more parsed, so a network read's events share a write. */
  flushSoon(): void {
    if (this.#batch.bytes === 0 || this.#timer !== undefined) return;
    const wait = this.#lastFlush + FLUSH_MS - Date.now();
    if (wait <= 0) this.#flush(false);
    else this.#timer = setTimeout(() => this.#flush(false), wait);
  }

  /** The final event ignores the byte limit: it says how the stream ended. */
  close(text: string): Promise<void> {
    const { count, size } = this.#batch.encode(text);
    this.#batch.queue(count, size);
    this.#flush(true);
    return this.#durable;
  }

  /** A joining reader forces a write, at most once per `FLUSH_MS` (a reconnect loop is common). */
  subscribe(wake: () => void): () => void {
    this.#listeners.add(wake);
    if (Date.now() - this.#lastForced >= FLUSH_MS) {
      this.#lastForced = Date.now();
      this.#flush(false);
      this.#lastFlush = Number.NEGATIVE_INFINITY; // and the next event too
    }
    return () => {
      if (this.#listeners.delete(wake) && this.#listeners.size === 0) {
        this.unreadSince = Date.now();
        this.onUnread?.();
      }
    };
  }

  get readers(): number {
    return this.#listeners.size;
  }

  read(after: number): { bytes: Uint8Array | undefined; last: number } {
    if (this.forgotten) return { bytes: undefined, last: after };
    const batches = this.#recentAfter(after) ?? this.#store.batchesAfter(after, this.lastVisible);
    if (batches.length === 0) return { bytes: undefined, last: after };
    const last = (batches.at(-1) as Batch).last;
    const parts = batches.map((batch) =>
      batch.first > after ? batch.data : batch.data.subarray(eventStart(batch.data, after + 1))
    );
    if (parts.length === 1) return { bytes: parts[0], last };
    const bytes = new Uint8Array(parts.reduce((size, part) => size + part.byteLength, 0));
    let at = 0;
    for (const part of parts) {
      bytes.set(part, at);
      at += part.byteLength;
    }
    return { bytes, last };
  }

  /** `undefined` when memory does not reach back to event `after + 1`: then the store has them. */
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
    this.forgotten = true;
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
    if (this.#recent.push(batch) > RECENT) this.#recent.shift();
    this.bytes += data.byteLength;
    pending.bytes = 0;
    this.#lastFlush = Date.now();
    this.#unsynced = { last, final };
    this.#durable = this.#syncing ??= this.#sync();
  }

  /** Group commit: one `sync()` covers every write before it; later writes wait for the next. */
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

/** The offset of event `id` in a batch: every event starts with its `id:` line. */
function eventStart(data: Uint8Array, id: number): number {
  const needle = encoder.encode(`\n\nid: ${id}\n`);
  // JSON data holds no raw newline, so the needle occurs only where an event starts.
  outer: for (let i = 0; i + needle.length <= data.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (data[i + j] !== needle[j]) continue outer;
    }
    return i + 2;
  }
  return data.length;
}
