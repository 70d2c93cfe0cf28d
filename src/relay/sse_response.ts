// The status waits for an upstream 200 or the commit time, so an early failure is a real HTTP
// error. Workers learn a caller left only when a write fails: keep-alives are those writes.

import type { Call } from "../client/internal.ts";
import { isInterruptedError } from "../core/error_guards.ts";
import { type ChunkEncoder, DONE_EVENT, type RelayEvent, type RelayItem } from "./chunks.ts";
import { COMMIT, commitTiming, raceCommit } from "./commit.ts";
import { describeFailure } from "./describe_failure.ts";
import { errorEvent, errorResponse, type RelayFailure } from "./error_response.ts";
import { bodyPipe, onRelayCancel } from "./body_pipe.ts";
import { AnswerLabel } from "./progress.ts";

export const KEEP_ALIVE = ": keep-alive\n\n";
/** Largest batch of already-parsed events sent as one write. */
export const MAX_WRITE = 16 * 1024;
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};
/**
 * Keep-alive intervals a caller may take nothing before it is given up on: it is never written
 * to again, so workerd would not learn it left, and the upstream call would live on.
 */
export const STALLED_KEEP_ALIVES = 4;
const noop = (): void => {};
const sameIndex = (target: number): number => target;

export interface RelayedStream {
  stream: Call<RelayItem>;
  /** Wired into `streamChat`'s `signal`. */
  abort: AbortController;
  encoder: ChunkEncoder;
  keepAliveMs: number;
  /** Upstream keys to scrub from error messages. */
  secrets: readonly string[];
  attempts: () => number;
  /** The configured index of a call's target (default: the same number). */
  upstreamOf?: (target: number) => number;
}

export async function sseResponse(call: RelayedStream): Promise<Response> {
  const commitAt = Date.now() + commitTiming(call.keepAliveMs).commitMs;
  // Forwarded upstream events come through as well (forward.ts).
  const iterator = call.stream[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<RelayEvent>> | undefined = iterator.next();
  let buffered = "";
  let ended = false;
  const label = new AnswerLabel(call.upstreamOf ?? sameIndex, call.attempts);
  try {
    while (pending !== undefined) {
      const step = await raceCommit(pending, commitAt - Date.now());
      if (step === COMMIT) break;
      pending = undefined;
      if (step.done) {
        ended = true;
        break;
      }
      const event = step.value;
      label.note(event);
      buffered = call.encoder.encode(event);
      if (buffered === "") pending = iterator.next();
      // An upstream 200 commits too: then keep-alives are the writes that notice a caller left.
      if (event.type === "open") break;
    }
  } catch (error) {
    return errorResponse(describeFailure(error, call.secrets), {
      "x-stopstream-attempts": String(call.attempts()),
    });
  }
  const headers = new Headers({ ...SSE_HEADERS, ...label.headers() });
  return new Response(streamBody(call, iterator, pending, buffered, ended, label), { headers });
}

function streamBody(
  call: RelayedStream,
  iterator: AsyncIterator<RelayEvent>,
  firstPending: Promise<IteratorResult<RelayEvent>> | undefined,
  buffered: string,
  ended: boolean,
  label: AnswerLabel,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  // A caller may go away before the loop awaits this; its rejection is expected then.
  firstPending?.catch(noop);
  let pending = firstPending;
  let lastWrite = 0;
  // `taken`: when the caller last took anything (a write, room, or a change of the pipe's size).
  let takes = 0;
  let seenTakes = 0;
  let seenSize = 0;
  let taken = Date.now();
  let closed = false;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const { body, writer } = bodyPipe();
  const onTaken = (): void => void takes++;
  const write = (bytes: Uint8Array): void => {
    lastWrite = Date.now();
    writer.write(bytes).then(onTaken, noop);
  };
  const send = (text: string): void => write(encoder.encode(text));
  const close = (): void => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    writer.close().catch(noop);
  };
  /** For the cooldown this is a caller's abort, never the upstream's failure. */
  const stopCall = (reason: unknown): void => {
    call.abort.abort(reason);
    void iterator.return?.();
  };
  // workerd's pipe tells its writer of a cancel only at the next write, so the relay's own
  // cancels (`stopAnswer`) come through `onRelayCancel` as well.
  const gone = (reason: unknown): void => {
    if (closed) return;
    closed = true;
    clearInterval(keepAlive);
    stopCall(reason ?? new Error("the caller closed the stream"));
  };
  writer.closed.catch(gone);
  onRelayCancel(body, gone);
  const stalled = (): void => {
    // Queued behind what it has not read: a caller who comes back reads why the answer ends.
    send(errorEvent(callerStalled(call.keepAliveMs)));
    close();
    stopCall(new Error("the caller took nothing of the answer"));
  };
  /** One write per network chunk's events: a write per token costs a syscall and an HTTP chunk. */
  const writeNext = async (): Promise<void> => {
    let out = "";
    for (;;) {
      let step: IteratorResult<RelayEvent>;
      try {
        step = await (pending ?? iterator.next());
      } catch (error) {
        // A caller that went away reads nothing more; anyone else learns the answer is cut.
        if (!isInterruptedError(error) && !closed) {
          out += errorEvent(describeFailure(error, call.secrets));
          send(out);
        }
        return close();
      }
      pending = undefined;
      if (closed) return;
      if (step.done) {
        send(out + DONE_EVENT);
        return close();
      }
      const event = step.value;
      const bytes = call.encoder.takeBytes(event);
      if (bytes !== undefined) {
        // Only after the answer began (forward.ts), so there is no label to write first.
        if (out !== "") send(out);
        out = "";
        write(bytes);
        if (!call.stream.backlogged) return;
        continue;
      }
      if (call.encoder.started) out += call.encoder.encode(event);
      else {
        label.note(event);
        const text = call.encoder.encode(event);
        out += call.encoder.started ? label.late() + text : text;
      }
      if (out !== "" && (!call.stream.backlogged || out.length >= MAX_WRITE)) return send(out);
    }
  };
  const run = async (): Promise<void> => {
    while (!closed) {
      // A slow caller holds the upstream back (at most one piece beyond the mark waits).
      if ((writer.desiredSize ?? 0) <= 0) await writer.ready;
      await writeNext();
    }
  };

  // Committed without content: a comment flushes the headers through proxies at once.
  send(buffered === "" && !ended ? KEEP_ALIVE : buffered);
  if (ended) {
    send(DONE_EVENT);
    close();
    return body;
  }
  // One interval, not a timer per chunk. Until the answer begins every tick writes; after, a
  // tick every keepAliveMs / 4 is enough to keep silences under 1.25 × keepAliveMs.
  const { keepAliveMs } = call;
  const quiet = Math.max(1, keepAliveMs / 4);
  let tick = Math.min(commitTiming(keepAliveMs).probeMs, quiet);
  const onTick = (): void => {
    if (closed) return;
    // A full pipe: a comment would only queue, never reaching a socket to test the caller.
    const size = writer.desiredSize ?? 0;
    const room = size > 0;
    if (room || takes !== seenTakes || size !== seenSize) {
      seenTakes = takes;
      seenSize = size;
      taken = Date.now();
    } else if (Date.now() - taken >= STALLED_KEEP_ALIVES * keepAliveMs) return stalled();
    if (!room) return;
    if (!call.encoder.started) return send(KEEP_ALIVE);
    if (tick !== quiet) {
      tick = quiet;
      clearInterval(keepAlive);
      keepAlive = setInterval(onTick, tick);
    }
    if (Date.now() - lastWrite >= keepAliveMs) send(KEEP_ALIVE);
  };
  keepAlive = setInterval(onTick, tick);
  run().catch((error: unknown) => {
    // Closed: the caller went away (`gone` stopped the call); else the relay itself failed.
    if (closed) return;
    try {
      send(errorEvent(describeFailure(error, call.secrets)));
    } catch {
      // Not even the error event could be made: the stream's end without [DONE] says it.
    }
    close();
    stopCall(error);
  });
  return body;
}

function callerStalled(keepAliveMs: number): RelayFailure {
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
