/** A resumable stream's SQLite rows. No upstream key and no request body is ever stored. */

import type { ProtocolName } from "../../core/chat_options.ts";

/** The slice of a SQLite-backed Durable Object's `ctx.storage` the relay uses. */
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

export type StreamStatus = "running" | "completed" | "failed" | "cancelled";

/** What the relay writes in the stream's name: the caller's protocol, the answer's id and model. */
export interface StreamAnswer {
  protocol: ProtocolName;
  id: string;
  model: string;
}

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
  bytes: number;
  /** SQLite rows written for this stream, this row's final update included. */
  writes: number;
  answer: StreamAnswer;
}

/** Events `first`…`last` with their `id:` lines, as the UTF-8 readers are sent. */
export interface Batch {
  first: number;
  last: number;
  data: Uint8Array;
}

export class StreamStore {
  readonly storage: StreamStorage;
  /** Rows written through this instance (from 0 again after a restart). */
  writes = 0;

  constructor(storage: StreamStorage) {
    this.storage = storage;
  }

  /** A new stream's row: running, with nothing stored yet. */
  create(
    meta: Pick<StreamMeta, "id" | "owner" | "created" | "ttl" | "keepAlive" | "answer">,
  ): void {
    this.#exec(
      "CREATE TABLE IF NOT EXISTS stream (id TEXT NOT NULL, owner TEXT NOT NULL, " +
        "status TEXT NOT NULL, created INTEGER NOT NULL, ended INTEGER, expires INTEGER, " +
        "ttl INTEGER NOT NULL, keep_alive INTEGER NOT NULL, events INTEGER NOT NULL, " +
        "bytes INTEGER NOT NULL, writes INTEGER NOT NULL, protocol TEXT, answer_id TEXT, " +
        "model TEXT)",
    );
    this.#exec(
      "CREATE TABLE IF NOT EXISTS batches (last INTEGER PRIMARY KEY, first INTEGER NOT NULL, " +
        "data BLOB NOT NULL)",
    );
    // The tables are bookkeeping, not stream data: only rows of the two tables count.
    this.writes = 0;
    const { protocol, id, model } = meta.answer;
    this.#exec(
      "INSERT INTO stream VALUES (?, ?, 'running', ?, NULL, NULL, ?, ?, 0, 0, 0, ?, ?, ?)",
      meta.id,
      meta.owner,
      meta.created,
      meta.ttl,
      meta.keepAlive,
      protocol,
      id,
      model,
    );
  }

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
      // A row from before the protocol was stored: its errors in OpenAI chat's shape, as then.
      answer: {
        protocol: (row.protocol ?? "openai-chat") as ProtocolName,
        id: String(row.answer_id ?? ""),
        model: String(row.model ?? ""),
      },
    };
  }

  append(batch: Batch): void {
    this.#exec("INSERT INTO batches VALUES (?, ?, ?)", batch.last, batch.first, batch.data);
  }

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

  extent(): { last: number; bytes: number } {
    const row = this.storage.sql.exec(
      "SELECT coalesce(max(last), 0) AS last, " +
        "coalesce(sum(length(data)), 0) AS bytes FROM batches",
    ).toArray()[0];
    return { last: Number(row?.last ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  /** Sets `meta.writes` to the rows written, this update included. */
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

  async delete(): Promise<void> {
    await this.storage.deleteAlarm();
    await this.storage.deleteAll();
  }

  #exec(query: string, ...bindings: unknown[]): void {
    this.writes += this.storage.sql.exec(query, ...bindings).rowsWritten;
  }
}
