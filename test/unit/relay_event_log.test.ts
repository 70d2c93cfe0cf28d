/**
 * The resumable stream's event log (src/relay/streams/event_log.ts) on a store that counts what
 * it is asked: events numbered from 1 without gaps across batches, nothing visible before its
 * sync, and readers at the live edge served from memory while a reader far behind reads the
 * stored rows; a reader of it (`readEvents`) that is slow but steady is never ended; writes
 * batched as docs/relay.md says; progress comments kept in memory only. The
 * Durable Object's own storage is exercised by test/workers/streams*.test.ts.
 */

import { describe, expect, it, vi } from "vitest";
import { EventLog } from "../../src/relay/streams/event_log.ts";
import { readEvents } from "../../src/relay/streams/reader.ts";
import { StreamErrors } from "../../src/relay/streams/stream_errors.ts";
import { type Batch, StreamStore } from "../../src/relay/streams/stream_store.ts";

/** A store keeping batches in an array; `reads` counts the reads of stored rows. */
class CountingStore extends StreamStore {
  rows: Batch[] = [];
  reads = 0;
  #synced: Array<() => void>;

  constructor(synced: Array<() => void> = []) {
    super({
      sql: { exec: () => ({ toArray: () => [], rowsWritten: 1 }) },
      setAlarm: () => Promise.resolve(),
      deleteAlarm: () => Promise.resolve(),
      deleteAll: () => Promise.resolve(),
      sync: () => new Promise<void>((resolve) => synced.push(resolve)),
    });
    this.#synced = synced;
  }

  override append(batch: Batch): void {
    this.rows.push({ ...batch, data: batch.data.slice() });
  }

  override batchesAfter(after: number, upTo: number): Batch[] {
    this.reads++;
    return this.rows.filter((b) => b.last > after && b.last <= upTo).slice(0, 8);
  }

  /** Completes the syncs under way, and those they start (a group commit's next round). */
  async sync(): Promise<void> {
    while (this.#synced.length > 0) {
      for (const done of this.#synced.splice(0)) done();
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  }
}

const event = (i: number): string => `data: {"n":${i},"text":"${"é".repeat(i % 5)}"}\n\n`;
const decode = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes);

/** The ids and data of SSE text. */
function eventsOf(text: string): Array<[number, string]> {
  return text.split("\n\n").filter(Boolean).map((block) => {
    const [id, data] = block.split("\n");
    return [Number(id?.slice(4)), data ?? ""];
  });
}

describe("EventLog", () => {
  it("numbers events from 1 without gaps, also several in one append, and shows them once synced", async () => {
    const store = new CountingStore();
    const log = new EventLog(store, 1 << 20, 1);
    expect(log.append(event(1))).toBe(true);
    expect(log.append(event(2) + event(3))).toBe(true);
    log.subscribe(() => {}); // a reader joins: what waits is written at once
    expect(log.read(0).bytes).toBeUndefined(); // written, not yet durable
    await store.sync();
    const { bytes, last } = log.read(0);
    expect(last).toBe(3);
    expect(eventsOf(decode(bytes))).toEqual([1, 2, 3].map((i) => [i, event(i).trim()]));
    expect(eventsOf(decode(log.read(1).bytes)).map(([id]) => id)).toEqual([2, 3]);
  });

  it("writes ids across a digit boundary, and events whose text has multi-byte characters", async () => {
    const store = new CountingStore();
    const log = new EventLog(store, 1 << 20, 999_998);
    log.append(event(1) + event(2) + event(3) + ": a comment, not an event's end\n" + event(4));
    log.subscribe(() => {});
    await store.sync();
    expect(decode(log.read(999_997).bytes)).toBe(
      `id: 999998\n${event(1)}id: 999999\n${event(2)}id: 1000000\n${event(3)}` +
        `id: 1000001\n: a comment, not an event's end\n${event(4)}`,
    );
  });

  it("stores events given as UTF-8 as it stores their text, numbered alike", async () => {
    const text = event(1) + event(2) + ": a comment\n" + event(4);
    const [byText, byBytes] = [new CountingStore(), new CountingStore()];
    const logs = [new EventLog(byText, 1 << 20, 9), new EventLog(byBytes, 1 << 20, 9)];
    expect(logs[0]!.append(text)).toBe(true);
    expect(logs[1]!.append(new TextEncoder().encode(text))).toBe(true);
    for (const log of logs) log.subscribe(() => {});
    await Promise.all([byText.sync(), byBytes.sync()]);
    expect(decode(logs[1]!.read(8).bytes)).toBe(decode(logs[0]!.read(8).bytes));
    expect(logs[1]!.read(8).last).toBe(11);
    // The byte limit counts id lines too, and refuses before keeping anything.
    const small = new EventLog(new CountingStore(), 20, 1);
    expect(small.append(new TextEncoder().encode(event(1)))).toBe(false);
    expect(small.append(new TextEncoder().encode("data: {}\n\n"))).toBe(true);
  });

  it("serves readers at the live edge from memory, and one far behind from storage", async () => {
    const store = new CountingStore();
    const log = new EventLog(store, 64 << 20, 1);
    log.subscribe(() => {});
    let id = 0;
    let position = 0;
    let text = "";
    for (let batch = 0; batch < 20; batch++) {
      // 64 KiB of events: written at once (a fast upstream), in one row or two.
      for (let size = 0; size < 64 * 1024; size += event(id).length) log.append(event(++id));
      await store.sync();
      const read = log.read(position);
      position = read.last;
      text += decode(read.bytes);
    }
    expect(store.rows.length).toBeGreaterThan(8); // more than memory keeps
    expect(position).toBe(log.lastVisible); // kept up (the tail under 64 KiB waits its window)
    expect(store.reads).toBe(0);
    expect(eventsOf(text).map(([n]) => n)).toEqual(
      Array.from({ length: position }, (_, i) => i + 1),
    );
    // A reader from the start: its first batches are no longer in memory.
    const replayed = eventsOf(decode(log.read(0).bytes));
    expect(store.reads).toBe(1);
    expect(replayed[0]?.[0]).toBe(1);
    // One inside the last batches, mid-batch: memory again, from the next event on.
    const lastRow = store.rows.at(-1) as Batch;
    const tail = eventsOf(decode(log.read(lastRow.first).bytes));
    expect(store.reads).toBe(1);
    expect(tail.map(([n]) => n)).toEqual(
      Array.from({ length: lastRow.last - lastRow.first }, (_, i) => lastRow.first + 1 + i),
    );
  });
});

describe("readEvents", () => {
  it("never ends a reader that is slow but takes every write, however far behind it is", async () => {
    // The rule is "four keep-alive intervals without taking anything": a reader catching up on
    // a stored stream is written at once on every pull, so it is never seen waiting at the live
    // edge; it was ended after four intervals although it took a write in each (review).
    const store = new CountingStore();
    const log = new EventLog(store, 1 << 30, 1);
    const big = `data: {"choices":[{"delta":{"content":"${"x".repeat(1000)}"}}]}\n\n`;
    const batch = big.repeat(Math.ceil(64 * 1024 / big.length));
    for (let i = 0; i < 160; i++) expect(log.append(batch)).toBe(true);
    const closing = log.close("data: [DONE]\n\n");
    await store.sync();
    await closing;

    const keepAliveMs = 20;
    const reader = readEvents(log, 0, keepAliveMs, new StreamErrors()).getReader();
    const decoder = new TextDecoder();
    let text = "";
    let reads = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reads++;
      text += decoder.decode(value, { stream: true });
      // The slow consumer under test: one write taken per keep-alive interval.
      await new Promise((resolve) => setTimeout(resolve, keepAliveMs));
    }
    expect(reads).toBeGreaterThan(8); // well past the four intervals of the rule
    expect(text.match(/^id: \d+$/gm)?.length).toBe(log.lastVisible);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
  });
});

// docs/relay.md: the first event after a quiet spell is written at once, later ones gathered for
// up to 50 ms or 64 KiB. The clock and the timers are fake: the test says when time passes.
describe("EventLog batches its writes", () => {
  it("writes the first event after a quiet spell at once, then gathers for 50 ms or 64 KiB", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    try {
      const store = new CountingStore();
      const log = new EventLog(store, 1 << 24, 1);
      const send = (text: string): void => {
        log.append(text);
        log.flushSoon(); // what the stream does when the upstream has nothing more parsed
      };
      send(event(1));
      expect(store.rows.map((b) => b.last)).toEqual([1]);
      vi.advanceTimersByTime(10);
      send(event(2));
      send(event(3));
      vi.advanceTimersByTime(39); // 49 ms after the first write
      expect(store.rows.map((b) => b.last)).toEqual([1]);
      vi.advanceTimersByTime(1);
      expect(store.rows.map((b) => b.last)).toEqual([1, 3]);
      // Quiet for longer than the window: at once again.
      vi.advanceTimersByTime(200);
      send(event(4));
      expect(store.rows.map((b) => b.last)).toEqual([1, 3, 4]);
      // 64 KiB waiting goes without waiting out the window.
      vi.advanceTimersByTime(5);
      log.append(`data: "${"x".repeat(64 * 1024)}"\n\n`);
      expect(store.rows.map((b) => b.last)).toEqual([1, 3, 4, 5]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("EventLog progress comments", () => {
  it("are kept in memory for readers, never stored, and only those made before the first event", async () => {
    const store = new CountingStore();
    const log = new EventLog(store, 1 << 20, 1);
    let woken = 0;
    log.subscribe(() => woken++);
    log.note(": retry 1\n\n");
    expect(log.notes).toBe(": retry 1\n\n");
    expect(woken).toBe(1); // a reader waiting for the first event gets it at once
    log.append(event(1));
    log.note(": resume\n\n"); // after the first event: a reader who resumes gets events only
    expect(log.notes).toBe(": retry 1\n\n");
    const closed = log.close(event(2));
    await store.sync();
    await closed;
    const stored = store.rows.map((b) => decode(b.data)).join("");
    expect(eventsOf(stored).map(([id]) => id)).toEqual([1, 2]);
    expect(stored).not.toMatch(/retry|resume/);
  });
});
