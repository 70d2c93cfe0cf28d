// What the relay writes to a caller who waits, and when it gives up on one who takes nothing:
// shared by the streaming answer (answer_writer.ts) and a resumable stream's readers.

import type { RelayFailure } from "./error_response.ts";

/**
 * The comment written while the caller waits: it carries no event (and no `id:`). Every comment
 * the relay writes is one line with no blank line after it: by the SSE standard a blank line with
 * no `data:` before it dispatches nothing, but `@microsoft/fetch-event-source` hands it to
 * `onmessage` as a message with empty data. A comment line may begin the next event's lines.
 */
export const KEEP_ALIVE = ": keep-alive\n";
/**
 * Keep-alive intervals a caller may take nothing before it is given up on: it is never written
 * to again, so workerd would not learn it left, and the upstream call would live on.
 */
export const STALLED_KEEP_ALIVES = 4;

/** The error event of an answer stopped because its caller took nothing of it. */
export function callerStalled(keepAliveMs: number): RelayFailure {
  const seconds = Math.round(STALLED_KEEP_ALIVES * keepAliveMs / 100) / 10;
  return {
    status: 408,
    message: `The caller took nothing of this answer for ${seconds} s (${STALLED_KEEP_ALIVES} ` +
      "keep-alive intervals) while 64 KiB or more of it waited; the relay stopped it and " +
      "cancelled the upstream request. Read the stream as it arrives, or ask with `stream: false`.",
    type: "relay_limit",
    code: "caller_stalled",
  };
}
