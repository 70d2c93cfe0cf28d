// What the relay writes to a caller who waits, and when it gives up on one who takes nothing:
// shared by the streaming answer (answer_writer.ts) and a resumable stream's readers.

import type { RelayFailure } from "./error_response.ts";

// Every comment is one line with no blank line after it: `@microsoft/fetch-event-source` hands a
// lone blank line to `onmessage` as an empty message.
export const KEEP_ALIVE = ": keep-alive\n";
/** Keep-alive intervals a caller may take nothing before it is given up on (and its call). */
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
