/**
 * One reader of a resumable stream: the stored events after its position, then the live ones
 * as they become visible, then the end. Every reader reads the same stored log, so all of them
 * get the same events in the same order, whenever they joined.
 *
 * @module
 */

import { KEEP_ALIVE } from "../sse_response.ts";
import type { EventLog } from "./event_log.ts";

const textEncoder = new TextEncoder();
const KEEP_ALIVE_BYTES = textEncoder.encode(KEEP_ALIVE);

/**
 * The SSE body of a reader that has seen every event up to `after` (0: none; it gets the
 * log's progress comments first).
 *
 * Pull-based: a reader that does not read holds nothing but its position, whatever the
 * others do. While it waits for events it gets a `: keep-alive` comment every `keepAliveMs`
 * (also how the Worker in front notices a reader that went away).
 *
 * @example
 * ```ts
 * return new Response(readEvents(log, lastEventId, 15_000), { headers: SSE_HEADERS });
 * ```
 */
export function readEvents(
  log: EventLog,
  after: number,
  keepAliveMs: number,
): ReadableStream<Uint8Array> {
  let position = after;
  /** How much of the log's progress comments this reader was sent (only from the start). */
  let noted = 0;
  let wake: (() => void) | undefined;
  let closed = false;
  let lastWrite = 0;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const unsubscribe = log.subscribe(() => {
    const resume = wake;
    wake = undefined;
    resume?.();
  });
  const stop = (): void => {
    closed = true;
    clearInterval(keepAlive);
    unsubscribe();
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      // Nothing to replay yet: a comment gets the headers through proxies at once.
      if (position === log.lastVisible && !log.ended) {
        lastWrite = Date.now();
        controller.enqueue(KEEP_ALIVE_BYTES);
      }
      keepAlive = setInterval(() => {
        if (closed || wake === undefined || Date.now() - lastWrite < keepAliveMs) return;
        lastWrite = Date.now();
        controller.enqueue(KEEP_ALIVE_BYTES);
      }, Math.max(1, keepAliveMs / 4));
    },
    async pull(controller) {
      for (;;) {
        if (position === 0 && log.notes.length > noted) {
          const notes = log.notes.slice(noted);
          noted += notes.length;
          lastWrite = Date.now();
          controller.enqueue(textEncoder.encode(notes));
          return;
        }
        // A few stored batches per write: a reader that fell behind catches up fast.
        const { bytes, last } = log.read(position);
        if (bytes !== undefined) {
          position = last;
          lastWrite = Date.now();
          controller.enqueue(bytes);
          return;
        }
        if (log.ended) {
          stop();
          controller.close();
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        if (closed) return;
      }
    },
    cancel() {
      // The reader went away; the stream, and every other reader, go on.
      stop();
    },
  }, { highWaterMark: 0 });
}
