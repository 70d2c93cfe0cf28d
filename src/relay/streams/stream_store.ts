/**
 * A resumable stream's storage in its Durable Object's SQLite database: one `stream` row (who
 * may read it, how it ended, when it expires) and one `batches` row per write of events. No
 * upstream key and no request body is ever stored: the events are what the readers get.
 *
 * @module
 */

/**
 * The slice of a SQLite-backed Durable Object's `ctx.storage` the relay uses.
 *
 * @example
 * ```ts
 * const storage: StreamStorage = ctx.storage;
 * ```
 */
export interface StreamStorage {
  /** The object's SQLite database. */
  sql: {
    exec(query: string, ...bindings: unknown[]): {
      toArray(): Record<string, unknown>[];
      readonly rowsWritten: number;
    };
  };
  /** Sets the object's one alarm (ms since the epoch). */
  setAlarm(scheduledTime: number): Promise<void>;
  /** Removes the alarm. */
  deleteAlarm(): Promise<void>;
  /** Deletes every table and row. */
  deleteAll(): Promise<void>;
  /** Resolves once every write so far is durable (SQLite-backed objects). */
  sync?(): Promise<void>;
}

/**
 * How a stream stands: `running`, or how it ended.
 *
 * @example
 * ```ts
 * const status: StreamStatus = "completed";
 * ```
 */
export type StreamStatus = "running" | "completed" | "failed" | "cancelled";

/**
 * The `stream` row.
 *
 * @example
 * ```ts
 * const meta: StreamMeta = { id, owner: "", status: "running", created: Date.now(), ended: null, expires: null, ttl: 600_000, keepAlive: 15_000, events: 0, bytes: 0, writes: 0 };
 * ```
 */
export interface StreamMeta {
  id: string;
  /** SHA-256 of the creating key (hex), or `""`: any caller the relay lets in may read it. */
  owner: string;
  status: StreamStatus;
  /** Times in ms since the epoch. */
  created: number;
  ended: number | null;
  expires: number | null;
  /** How long the stream is kept after it ends, in ms. */
  ttl: number;
  /** The keep-alive interval for readers, in ms. */
  keepAlive: number;
  /** The last event id. */
  events: number;
  /** Stored bytes (UTF-8) of the events. */
  bytes: number;
  /** SQLite rows written for this stream, this row's final update included. */
  writes: number;
}

/**
 * One write of events: the SSE text of events `first`…`last` (each with its `id:` line), as
 * UTF-8 (what readers are sent, so nothing is converted on the way out).
 *
 * @example
 * ```ts
 * const batch: Batch = { first: 1, last: 1, data: new TextEncoder().encode("id: 1\ndata: {…}\n\n") };
 * ```
 */
export interface Batch {
  first: number;
  last: number;
  data: Uint8Array;
}

/**
 * Reads and writes one stream's rows, counting the rows it writes.
 *
 * @example
 * ```ts
 * const store = new StreamStore(ctx.storage);
 * const meta = store.meta(); // undefined for an unknown or deleted stream
 * ```
 */
export class StreamStore {
  readonly storage: StreamStorage;
  /** Rows written through this instance (an object that restarted counts again from 0). */
  writes = 0;

  constructor(storage: StreamStorage) {
    this.storage = storage;
  }

  /** Creates the tables and the `stream` row of a new stream. */
  create(meta: StreamMeta): void {
    this.#exec(
      "CREATE TABLE IF NOT EXISTS stream (id TEXT NOT NULL, owner TEXT NOT NULL, " +
        "status TEXT NOT NULL, created INTEGER NOT NULL, ended INTEGER, expires INTEGER, " +
        "ttl INTEGER NOT NULL, keep_alive INTEGER NOT NULL, events INTEGER NOT NULL, " +
        "bytes INTEGER NOT NULL, writes INTEGER NOT NULL)",
    );
    this.#exec(
      "CREATE TABLE IF NOT EXISTS batches (last INTEGER PRIMARY KEY, first INTEGER NOT NULL, " +
        "data BLOB NOT NULL)",
    );
    // The tables are bookkeeping, not stream data: only rows of the two tables count.
    this.writes = 0;
    this.#exec(
      "INSERT INTO stream VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      meta.id,
      meta.owner,
      meta.status,
      meta.created,
      meta.ended,
      meta.expires,
      meta.ttl,
      meta.keepAlive,
      meta.events,
      meta.bytes,
      meta.writes,
    );
  }

  /** The `stream` row, or `undefined` when this object holds no stream (never did, or expired). */
  meta(): StreamMeta | undefined {
    // Reading must not create anything: an unknown id leaves no storage (and no alarm) behind.
    const tables = this.storage.sql.exec(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'stream'",
    ).toArray();
    if (tables.length === 0) return undefined;
    const row = this.storage.sql.exec("SELECT * FROM stream LIMIT 1").toArray()[0];
    if (row === undefined) return undefined;
    return {
      id: String(row.id),
      owner: String(row.owner),
      status: row.status as StreamStatus,
      created: Number(row.created),
      ended: row.ended === null ? null : Number(row.ended),
      expires: row.expires === null ? null : Number(row.expires),
      ttl: Number(row.ttl),
      keepAlive: Number(row.keep_alive),
      events: Number(row.events),
      bytes: Number(row.bytes),
      writes: Number(row.writes),
    };
  }

  /** Stores one batch of events. */
  append(batch: Batch): void {
    this.#exec("INSERT INTO batches VALUES (?, ?, ?)", batch.last, batch.first, batch.data);
  }

  /** The batches holding events after `after`, up to event `upTo`, a few at a time, in order. */
  batchesAfter(after: number, upTo: number): Batch[] {
    return this.storage.sql.exec(
      "SELECT first, last, data FROM batches WHERE last > ? AND last <= ? ORDER BY last LIMIT 8",
      after,
      upTo,
    ).toArray().map((row) => ({
      first: Number(row.first),
      last: Number(row.last),
      data: new Uint8Array(row.data as ArrayBuffer),
    }));
  }

  /** The last stored event id and the stored bytes (UTF-8). */
  extent(): { last: number; bytes: number } {
    const row = this.storage.sql.exec(
      "SELECT coalesce(max(last), 0) AS last, " +
        "coalesce(sum(length(data)), 0) AS bytes FROM batches",
    ).toArray()[0];
    return { last: Number(row?.last ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  /** Records how the stream ended; `meta.writes` is set to the rows written, this one included. */
  finish(meta: StreamMeta): void {
    meta.writes = this.writes + 1;
    this.#exec(
      "UPDATE stream SET status = ?, ended = ?, expires = ?, events = ?, bytes = ?, writes = ?",
      meta.status,
      meta.ended,
      meta.expires,
      meta.events,
      meta.bytes,
      meta.writes,
    );
  }

  /** Deletes everything: the rows, the tables and the alarm. */
  async delete(): Promise<void> {
    await this.storage.deleteAlarm();
    await this.storage.deleteAll();
  }

  #exec(query: string, ...bindings: unknown[]): void {
    this.writes += this.storage.sql.exec(query, ...bindings).rowsWritten;
  }
}
