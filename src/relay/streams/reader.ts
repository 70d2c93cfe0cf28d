/** One reader of a resumable stream: the stored events after its position, then live ones. */

import { invalidRequest, type RelayFailure } from "../error_response.ts";
import { KEEP_ALIVE, STALLED_KEEP_ALIVES } from "../keep_alive.ts";
import type { EventLog } from "./event_log.ts";
import type { StreamErrors } from "./stream_errors.ts";

const textEncoder = new TextEncoder();
const KEEP_ALIVE_BYTES = textEncoder.encode(KEEP_ALIVE);
/** A reader cut by the stream's expiry is told, never left with a silently short answer. */
const EXPIRED = invalidRequest(
  410,
  "The stream expired while it was being read, so the rest of it is gone; send the request again.",
  "stream_expired",
);

/** A `Last-Event-ID` (or `?after=`): an event id, a whole number. */
export const EVENT_ID = /^(?:0|[1-9]\d{0,14})$/;

/** `retry-after` is one keep-alive interval: by then a departed reader's place is free. */
export function tooManyReaders(maxReaders: number, keepAliveMs: number): RelayFailure {
  return {
    status: 429,
    message: `This stream already has ${maxReaders} readers, the most this relay serves at ` +
      "once; close one of them, or try again once one has ended.",
    type: "rate_limit_error",
    code: "too_many_readers",
    headers: { "retry-after": String(Math.max(1, Math.ceil(keepAliveMs / 1000))) },
  };
}

/** A position that is no event id, or one past the last event so far. */
export function afterTheEnd(given: string, last: number): RelayFailure {
  const message = EVENT_ID.test(given)
    ? `Last-Event-ID ${given} is after the last event of this stream so far (${last}).`
    : `Last-Event-ID (or ?after=) must be an event id, a whole number, got ${
      JSON.stringify(given.slice(0, 40))
    }.`;
  return invalidRequest(400, message, "invalid_last_event_id");
}

// workerd notices a departed caller only when a write fails, hence the keep-alives; a caller
// that takes nothing for `STALLED_KEEP_ALIVES` intervals is closed without `[DONE]`, to resume.
export function readEvents(
  log: EventLog,
  after: number,
  keepAliveMs: number,
  errors: StreamErrors,
): ReadableStream<Uint8Array> {
  let position = after;
  let noted = 0;
  let wake: (() => void) | undefined;
  let closed = false;
  let lastWrite = 0;
  let pulling = false;
  let taken = Date.now();
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const resume = (): void => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  const unsubscribe = log.subscribe(resume);
  const stop = (): void => {
    closed = true;
    clearInterval(keepAlive);
    unsubscribe();
    resume();
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
      // With a high-water mark of 0, a pull means the caller took the last write. Counted here
      // too: a reader behind the live edge is written at once and never seen waiting.
      taken = Date.now();
      try {
        await next(controller);
      } finally {
        pulling = false;
      }
    },
    cancel() {
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
      const { bytes, last } = log.read(position);
      if (bytes !== undefined) {
        position = last;
        lastWrite = Date.now();
        controller.enqueue(bytes);
        return;
      }
      if (log.ended) {
        stop();
        // Deleted before this reader got the last event: told, not cut short in silence.
        if (log.forgotten && position < log.lastVisible) {
          controller.enqueue(textEncoder.encode(errors.event(EXPIRED, position)));
        }
        controller.close();
        return;
      }
      await new Promise<void>((resolve) => (wake = resolve));
      if (closed) return;
    }
  }
}
