/**
 * The streaming answer of the relay: holds the HTTP status back until an upstream answers 200
 * or the commit time passes (so an early failure is a real HTTP error: an upstream 4xx keeps
 * its status), writes `: keep-alive` comments while the caller waits, and ends a stream that
 * failed after that with an error event and no `[DONE]`.
 *
 * Workers learn that a caller disconnected when a write to it fails (see `commit.ts`). Tokens
 * are writes, so a disconnect mid-answer aborts the upstream at once; before the first token
 * the comments are the writes, sent every `probeMs` so a caller who leaves is noticed within
 * about a second; after it, silences get a comment every `keepAliveMs`.
 *
 * @module
 */

import type { ChatStream } from "../chat_stream.ts";
import { isInterruptedError } from "../error_guards.ts";
import { type ChunkEncoder, DONE_EVENT, type RelayEvent } from "./chunks.ts";
import { COMMIT, commitTiming, raceCommit } from "./commit.ts";
import { describeFailure } from "./describe_failure.ts";
import { errorEvent, errorResponse, type RelayFailure } from "./error_response.ts";
import { bodyPipe, onRelayCancel } from "./body_pipe.ts";
import { AnswerLabel } from "./progress.ts";

/**
 * The SSE comment sent while the caller waits: it carries no event (and no `id:`).
 *
 * @example
 * ```ts
 * controller.enqueue(encoder.encode(KEEP_ALIVE));
 * ```
 */
export const KEEP_ALIVE = ": keep-alive\n\n";
/**
 * Largest batch of already-parsed events sent as one write.
 *
 * @example
 * ```ts
 * if (out.length >= MAX_WRITE) send(out);
 * ```
 */
export const MAX_WRITE = 16 * 1024;
/**
 * The headers of every SSE answer of the relay.
 *
 * @example
 * ```ts
 * new Headers({ ...SSE_HEADERS, "x-stopstream-attempts": "1" });
 * ```
 */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};
/**
 * Keep-alive intervals a caller may take nothing of what waits for it before the relay gives up
 * on it (60 s by default): its streaming answer is stopped, a resumable stream's reader ended.
 * Such a caller (connected but never reading, or gone while its buffers were full) is never
 * written to again, so workerd would not learn it left; the upstream call and what it holds
 * would live as long as the connection.
 *
 * @example
 * ```ts
 * if (Date.now() - taken >= STALLED_KEEP_ALIVES * keepAliveMs) stop();
 * ```
 */
export const STALLED_KEEP_ALIVES = 4;
const noop = (): void => {};
const sameIndex = (target: number): number => target;

/**
 * One relayed streaming call, ready to be turned into a response.
 *
 * @example
 * ```ts
 * const call: RelayedStream = { stream, abort, encoder, keepAliveMs: 15_000, secrets: [], attempts: () => 1 };
 * ```
 */
export interface RelayedStream {
  stream: ChatStream;
  /** Aborting it stops the upstream call (wired into `streamChat`'s `signal`). */
  abort: AbortController;
  encoder: ChunkEncoder;
  keepAliveMs: number;
  /** Upstream keys to scrub from error messages. */
  secrets: readonly string[];
  /** How many upstream requests have been made so far. */
  attempts: () => number;
  /** The configured index of the call's target `target` (default: the same number). */
  upstreamOf?: (target: number) => number;
}

/**
 * Run the call until an upstream answers 200 (or the commit time passes), then answer: an OpenAI
 * error with the right status when it failed before that, an SSE stream of chunks otherwise.
 *
 * @example
 * ```ts
 * return await sseResponse({ stream, abort, encoder, keepAliveMs, secrets, attempts });
 * ```
 */
export async function sseResponse(call: RelayedStream): Promise<Response> {
  const commitAt = Date.now() + commitTiming(call.keepAliveMs).commitMs;
  // Forwarded upstream events come through as well (forward.ts).
  const iterator = call.stream[Symbol.asyncIterator]() as AsyncIterator<RelayEvent>;
  let pending: Promise<IteratorResult<RelayEvent>> | undefined = iterator.next();
  let buffered = "";
  let ended = false;
  const label = new AnswerLabel(call.upstreamOf ?? sameIndex, call.attempts);
  try {
    // Retries, stalls and fallbacks before the first content stay invisible: nothing is sent.
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
      // An upstream that answered 200 commits the response too: from here on the relay writes
      // keep-alives, and a write is how workerd notices a caller that went away.
      if (event.type === "open") break;
    }
  } catch (error) {
    return errorResponse(describeFailure(error, call.secrets), {
      "x-stopstream-attempts": String(call.attempts()),
    });
  }
  // As of the commit; what they become before the answer begins is a comment (AnswerLabel).
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
  /**
   * Writes the caller has taken so far, and when it last took anything: a taken write, room in
   * the pipe, or any change of what waits in it between ticks.
   */
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
  /** Stops the upstream call: for the cooldown a caller's abort, never the upstream's failure. */
  const stopCall = (reason: unknown): void => {
    call.abort.abort(reason);
    void iterator.return?.();
  };
  // The caller disconnected (the body cancelled): stop the upstream at once; the stream ends as
  // interrupted. workerd's pipe tells its writer only at the next write, so the relay's own
  // cancels (the demo's caller-drop fault) also come through `stopAnswer`.
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
  /**
   * Writes the events the client has already parsed (one network chunk's worth) as one write: a
   * write per token costs workerd a syscall and an HTTP chunk each. Resolves once it wrote.
   */
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
        // Its own bytes, not encoded again. Only after the answer began (forward.ts), so
        // there is no label to write first.
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
      // A slow caller holds the upstream back: the next read waits for room in the pipe (at
      // most one upstream piece beyond the mark waits).
      if ((writer.desiredSize ?? 0) <= 0) await writer.ready;
      await writeNext();
    }
  };

  // Committed without content (an upstream 200, or keepAliveMs of waiting): a comment flushes
  // the headers through proxies at once.
  send(buffered === "" && !ended ? KEEP_ALIVE : buffered);
  if (ended) {
    send(DONE_EVENT);
    close();
    return body;
  }
  // One interval, not a timer per chunk. Until the answer begins every tick writes (the caller
  // waits: a write is how a Worker notices it left); after, a tick every quarter of keepAliveMs
  // keeps silences within 1.25 × keepAliveMs (any write is as good as a keep-alive), and 300
  // streams no longer wake the isolate 750 times a second for nothing.
  const { keepAliveMs } = call;
  const quiet = Math.max(1, keepAliveMs / 4);
  let tick = Math.min(commitTiming(keepAliveMs).probeMs, quiet);
  const onTick = (): void => {
    if (closed) return;
    // A full pipe means the caller has not taken what it was given: a comment would only queue
    // behind it (and never reach a socket to find out whether the caller is there).
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
    // The caller went away (the pipe errored; `gone` stopped the call), or the relay itself
    // failed: then the caller learns the answer is cut, and the upstream call stops.
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

/** The error event of an answer stopped because its caller took nothing of it. */
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
