// The body of a streaming answer once its status is sent: keep-alives fill the silences (a write
// is how workerd learns a caller left), and a caller who takes nothing for long is let go.

import type { Call } from "../client/internal.ts";
import { noop } from "../core/constants.ts";
import { isInterruptedError } from "../core/error_guards.ts";
import { bodyPipe } from "./body_pipe.ts";
import type { AnswerEncoder } from "./answer_encoder.ts";
import type { RelayEvent, RelayItem } from "./chunks.ts";
import { commitTiming } from "./commit.ts";
import { describeFailure } from "./describe_failure.ts";
import type { RelayFailure } from "./error_response.ts";
import { callerStalled, KEEP_ALIVE, STALLED_KEEP_ALIVES } from "./keep_alive.ts";
import type { AnswerLabel } from "./progress.ts";

/** Largest batch of already-parsed events sent as one write. */
export const MAX_WRITE = 16 * 1024;
/** One relayed streaming call, as the response is made of it. */
export interface RelayedStream {
  stream: Call<RelayItem>;
  /** Wired into `streamChat`'s `signal`. */
  abort: AbortController;
  encoder: AnswerEncoder;
  keepAliveMs: number;
  /** Upstream keys to scrub from error messages. */
  secrets: readonly string[];
  attempts: () => number;
  /** The configured index of a call's target (default: the same number). */
  upstreamOf?: (target: number) => number;
  /** The error body of the caller's protocol, for an HTTP error (default: OpenAI's). */
  errorBody?: (failure: RelayFailure) => unknown;
}

export class AnswerWriter {
  readonly body: ReadableStream<Uint8Array>;
  readonly #call: RelayedStream;
  readonly #iterator: AsyncIterator<RelayEvent>;
  readonly #label: AnswerLabel;
  readonly #writer: WritableStreamDefaultWriter;
  readonly #text = new TextEncoder();
  #pending: Promise<IteratorResult<RelayEvent>> | undefined;
  #closed = false;
  #lastWrite = 0;
  /** Writes the caller took; with the pipe's size, what tells a slow caller from a gone one. */
  #takes = 0;
  #seenTakes = 0;
  #seenSize = 0;
  /** When the caller last took anything (a write, room, or a change of the pipe's size). */
  #taken = Date.now();
  /** Wakes the loop waiting in `#room`. */
  #wake: (() => void) | undefined;
  #keepAlive: ReturnType<typeof setInterval> | undefined;
  #tick: number;
  readonly #quiet: number;

  constructor(
    call: RelayedStream,
    iterator: AsyncIterator<RelayEvent>,
    pending: Promise<IteratorResult<RelayEvent>> | undefined,
    label: AnswerLabel,
  ) {
    this.#call = call;
    this.#iterator = iterator;
    this.#label = label;
    // A caller may go away before the loop awaits this; its rejection is expected then.
    pending?.catch(noop);
    this.#pending = pending;
    const { body, writer } = bodyPipe();
    this.body = body;
    this.#writer = writer;
    writer.closed.catch(this.#gone);
    // Until the answer begins every tick writes; after, a tick every keepAliveMs / 4 keeps
    // silences under 1.25 × keepAliveMs. One interval, not a timer per chunk.
    this.#quiet = Math.max(1, call.keepAliveMs / 4);
    this.#tick = Math.min(commitTiming(call.keepAliveMs).probeMs, this.#quiet);
  }

  /** Writes what the commit found (`buffered`), then the rest of the answer. */
  start(buffered: string, ended: boolean): ReadableStream<Uint8Array> {
    // Committed without content: a comment flushes the headers through proxies at once.
    this.#send(buffered === "" && !ended ? KEEP_ALIVE : buffered);
    if (ended) {
      this.#send(this.#call.encoder.done);
      this.#close();
      return this.body;
    }
    this.#keepAlive = setInterval(this.#onTick, this.#tick);
    this.#run().catch((error: unknown) => {
      // Closed: the caller went away (`#gone` stopped the call); else the relay itself failed.
      if (this.#closed) return;
      try {
        this.#send(this.#call.encoder.fail(describeFailure(error, this.#call.secrets)));
      } catch {
        // Not even the error event could be made: the stream's end without [DONE] says it.
      }
      this.#close();
      this.#stopCall(error);
    });
    return this.body;
  }

  async #run(): Promise<void> {
    while (!this.#closed) {
      // A slow caller holds the upstream back (at most one piece beyond the mark waits).
      while ((this.#writer.desiredSize ?? 0) <= 0 && !this.#closed) await this.#room();
      await this.#writeNext();
    }
  }

  /** `ready`, or the next write taken: workerd's pipe may never settle an older `ready`. */
  #room(): Promise<unknown> {
    const taken = new Promise<void>((resolve) => (this.#wake = resolve));
    return Promise.race([this.#writer.ready, taken]);
  }

  /** One write per network chunk's events: a write per token costs a syscall and an HTTP chunk. */
  async #writeNext(): Promise<void> {
    const { encoder, stream } = this.#call;
    let out = "";
    for (;;) {
      let step: IteratorResult<RelayEvent>;
      try {
        step = await (this.#pending ?? this.#iterator.next());
      } catch (error) {
        // A caller that went away reads nothing more; anyone else learns the answer is cut.
        if (!isInterruptedError(error) && !this.#closed) {
          out += encoder.fail(describeFailure(error, this.#call.secrets));
          this.#send(out);
        }
        return this.#close();
      }
      this.#pending = undefined;
      if (this.#closed) return;
      if (step.done) {
        this.#send(out + encoder.done);
        return this.#close();
      }
      const event = step.value;
      const bytes = encoder.takeBytes(event);
      if (bytes !== undefined) {
        // Only after the answer began (forward.ts), so there is no label to write first.
        if (out !== "") this.#send(out);
        out = "";
        this.#write(bytes);
        if (!stream.backlogged) return;
        continue;
      }
      if (encoder.started) out += encoder.encode(event);
      else {
        this.#label.note(event);
        const text = encoder.encode(event);
        out += encoder.started ? this.#label.late() + text : text;
      }
      if (out !== "" && (!stream.backlogged || out.length >= MAX_WRITE)) return this.#send(out);
    }
  }

  #write(bytes: Uint8Array): void {
    this.#lastWrite = Date.now();
    this.#writer.write(bytes).then(this.#onTaken, this.#wakeRun);
  }

  #send(text: string): void {
    this.#write(this.#text.encode(text));
  }

  #onTaken = (): void => {
    this.#takes++;
    this.#wakeRun();
  };

  /** A write taken or refused: the loop waiting in `#room` looks again. */
  #wakeRun = (): void => {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  };

  #onTick = (): void => {
    if (this.#closed) return;
    const { encoder, keepAliveMs } = this.#call;
    // A full pipe: a comment would only queue, never reaching a socket to test the caller.
    const size = this.#writer.desiredSize ?? 0;
    const room = size > 0;
    if (room || this.#takes !== this.#seenTakes || size !== this.#seenSize) {
      this.#seenTakes = this.#takes;
      this.#seenSize = size;
      this.#taken = Date.now();
    } else if (Date.now() - this.#taken >= STALLED_KEEP_ALIVES * keepAliveMs) {
      return this.#stalled();
    }
    if (!room) return;
    if (!encoder.started) return this.#send(KEEP_ALIVE);
    if (this.#tick !== this.#quiet) {
      this.#tick = this.#quiet;
      clearInterval(this.#keepAlive);
      this.#keepAlive = setInterval(this.#onTick, this.#tick);
    }
    if (Date.now() - this.#lastWrite >= keepAliveMs) this.#send(encoder.keepAlive());
  };

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    this.#writer.close().catch(noop);
  }

  /** For the cooldown this is a caller's abort, never the upstream's failure. */
  #stopCall(reason: unknown): void {
    this.#call.abort.abort(reason);
    void this.#iterator.return?.();
  }

  /** The caller went away: workerd's pipe says so at the next write. */
  #gone = (reason: unknown): void => {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#keepAlive);
    this.#stopCall(reason ?? new Error("the caller closed the stream"));
  };

  #stalled(): void {
    // Queued behind what it has not read: a caller who comes back reads why the answer ends.
    this.#send(this.#call.encoder.fail(callerStalled(this.#call.keepAliveMs)));
    this.#close();
    this.#stopCall(new Error("the caller took nothing of the answer"));
  }
}
