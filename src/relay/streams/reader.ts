/**
 * One reader of a resumable stream: the stored events after its position, then the live ones
 * as they become visible, then the end. Every reader reads the same stored log, so all of them
 * get the same events in the same order, whenever they joined.
 *
 * How many read at once is capped (`maxStreamReaders`), and a reader's place is given back
 * when it ends, when its caller goes away, or when it stalls. workerd learns that a caller went
 * away only when a write to it fails: a reader waiting at the live edge writes a keep-alive
 * every `keepAliveMs`, so its place comes back within about that. A reader whose caller takes
 * nothing (gone while its buffers were full, or connected and never reading) is never written
 * to again, so it would keep its place for good: after `STALLED_KEEP_ALIVES` keep-alive
 * intervals without taking anything it is ended, and may resume with `Last-Event-ID`.
 *
 * @module
 */

import { errorResponse, type RelayFailure } from "../error_response.ts";
import { KEEP_ALIVE, STALLED_KEEP_ALIVES } from "../sse_response.ts";
import type { EventLog } from "./event_log.ts";

const textEncoder = new TextEncoder();
const KEEP_ALIVE_BYTES = textEncoder.encode(KEEP_ALIVE);

/**
 * The answer to one reader more than a stream serves at once: a 429 in OpenAI's shape, with a
 * `retry-after` of one keep-alive interval (by then a departed reader's place is free).
 *
 * @example
 * ```ts
 * if (log.readers >= maxReaders) return tooManyReaders(maxReaders, meta.keepAlive);
 * ```
 */
export function tooManyReaders(maxReaders: number, keepAliveMs: number): Response {
  const failure: RelayFailure = {
    status: 429,
    message: `This stream already has ${maxReaders} readers, the most this relay serves at ` +
      "once; close one of them, or try again once one has ended.",
    type: "rate_limit_error",
    code: "too_many_readers",
    headers: { "retry-after": String(Math.max(1, Math.ceil(keepAliveMs / 1000))) },
  };
  return errorResponse(failure);
}

/**
 * The SSE body of a reader that has seen every event up to `after` (0: none; it gets the
 * log's progress comments first).
 *
 * Pull-based: a reader that does not read holds nothing but its position, whatever the
 * others do. While it waits for events it gets a `: keep-alive` comment every `keepAliveMs`
 * (also how the Worker in front notices a reader that went away); one that takes nothing for
 * `STALLED_KEEP_ALIVES` intervals is ended (closed, no `[DONE]`: a client resumes).
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
  /** Whether its caller waits for the next write (a pull is under way), and since when not. */
  let pulling = false;
  let taken = Date.now();
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
        if (closed) return;
        // Waiting for us with nothing queued: the caller takes what it is sent.
        if (pulling && (controller.desiredSize ?? 0) >= 0) taken = Date.now();
        else if (Date.now() - taken >= STALLED_KEEP_ALIVES * keepAliveMs) {
          stop();
          controller.close();
          return;
        }
        if (wake === undefined || Date.now() - lastWrite < keepAliveMs) return;
        lastWrite = Date.now();
        controller.enqueue(KEEP_ALIVE_BYTES);
      }, Math.max(1, keepAliveMs / 4));
    },
    async pull(controller) {
      pulling = true;
      // Nothing is queued ahead of a pull (a high-water mark of 0): the caller took the last
      // write. Counted here, not only by the tick: a reader behind the live edge is written at
      // once and never seen waiting, however steadily it reads.
      taken = Date.now();
      try {
        await next(controller);
      } finally {
        pulling = false;
      }
    },
    cancel() {
      // The reader went away; the stream, and every other reader, go on.
      stop();
    },
  }, { highWaterMark: 0 });

  async function next(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
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
  }
}
