/**
 * The part of resumable streams every call carries: it notices that the server keeps the
 * stream running (a relay response with `x-stopstream-stream-id`, or OpenAI Responses
 * background mode) and only then loads the resumable-stream client (resume.ts), which most
 * apps never need — so it is not in what every app downloads (see core_kit.ts). The load
 * starts as the stream opens, while its first events are read, so a drop seconds later finds
 * the client there; a drop that comes first waits for it, and a stop ends that wait at once.
 *
 * @module
 */

import type { Accumulator } from "./accumulator.ts";
import { type CallControl, type Cancellable, noop } from "./call_control.ts";
import { CORE_KIT } from "./core_kit.ts";
import { lazy } from "./lazy.ts";
import type { Resumption } from "./resume.ts";
import type { CallTarget } from "./retry_loop.ts";
import type { SseFeed } from "./sse_feed.ts";
import type { AttemptStream, StreamRequest } from "./transport.ts";

/**
 * The response header of a resumable relay stream; its value is the stream id.
 *
 * @example
 * ```ts
 * response.headers.get(STREAM_ID_HEADER); // "3f9a…" (32 hex digits): resume with GET {baseURL}/streams/3f9a…
 * ```
 */
export const STREAM_ID_HEADER = "x-stopstream-stream-id";

const loadClient = lazy(
  "the resumable-stream client",
  () => import("./resume.ts").then((module) => module.resumption(CORE_KIT)),
);

/**
 * One target's stream as the retry loop and the attempts see it: not resumable (every call
 * until a response says otherwise, at the cost of a header look-up), or resumable, and then
 * each question goes to the resumable-stream client.
 *
 * @example
 * ```ts
 * const stream = new ResumableStream(target, control);
 * const after = await stream.resumeAfter(error, exhausted); // "12": resume after event 12
 * ```
 */
export class ResumableStream implements AttemptStream, Cancellable {
  #target: CallTarget;
  #control: CallControl;
  /** OpenAI Responses background mode: resumable from the first response on. */
  #background: boolean;
  /** The client, once loaded for a stream of this target. */
  #client: Resumption | undefined = undefined;
  /** A stream that opened while the client was loading: the client is told of it when loaded. */
  #opened: [string | undefined, SseFeed, Accumulator] | undefined = undefined;
  /** While the client loads: the caller's stop, which it must pass on once it is there. */
  #stop: Error | undefined = undefined;

  constructor(target: CallTarget, control: CallControl) {
    this.#target = target;
    this.#control = control;
    this.#background = target.protocol.name === "openai-responses" &&
      target.body.background === true;
  }

  /** The answer the next attempt goes on with, while resuming. */
  get acc(): Accumulator | undefined {
    return this.#client?.acc;
  }

  /** The feed the next connection goes on with, while resuming. */
  get feed(): SseFeed | undefined {
    return this.#client?.feed;
  }

  /** The next attempt's request while resuming: a `GET` for the rest of the stream. */
  request(): StreamRequest | undefined {
    return this.#client?.request();
  }

  /** A response is a stream: resumable only if the server said it keeps it. */
  opened(headers: Record<string, string>, feed: SseFeed, acc: Accumulator): void {
    const id = headers[STREAM_ID_HEADER];
    if (this.#client !== undefined) return this.#client.opened(id, feed, acc);
    if (id === undefined && !this.#background) return;
    this.#opened = [id, feed, acc];
    const loaded = loadClient();
    if (!(loaded instanceof Promise)) return void this.#attach(loaded);
    // Until the client is there, a stop comes here (and is passed on to it).
    this.#control.remote = this;
    loaded.then((client) => this.#attach(client), noop);
  }

  /**
   * After a failed attempt: the event to resume after (`""`: the start) when the stream can go
   * on over a new connection, else `undefined` (then call {@linkcode ResumableStream.failure}).
   * Waits for the client if the stream was resumable and it is still loading (at most the
   * call's `headersMs`); a client that failed to load means the stream cannot be resumed.
   */
  resumeAfter(
    error: unknown,
    exhausted: boolean,
  ): string | undefined | Promise<string | undefined> {
    if (this.#opened === undefined) return this.#client?.resumeAfter(error, exhausted);
    const loading = loadClient(this.#control, this.#target.timeouts.headersMs);
    return Promise.resolve(loading).then((client) => {
      this.#attach(client);
      return this.#client!.resumeAfter(error, exhausted);
    }, (loadError) => {
      if (this.#control.stopError !== undefined) throw loadError;
      this.#opened = undefined;
      return undefined;
    });
  }

  /** The stream ended: a resumed one must have fed every event up to its last, once. */
  ended(feed: SseFeed): void {
    this.#opened = undefined; // an answer that ended whole has nothing left to resume
    this.#client?.ended(feed);
  }

  /** After a failed attempt that is not resumed: ends this stream; the error to go on with. */
  failure(error: unknown): unknown {
    this.#opened = undefined;
    if (this.#control.remote === this) this.#control.remote = undefined;
    return this.#client === undefined ? error : this.#client.failure(error);
  }

  /** The caller stopped while the client was loading: it cancels the stream once it is there. */
  cancel(reason: Error): void {
    this.#stop = reason;
  }

  /** The client is loaded: it takes over the stream that opened meanwhile, if it is still on. */
  #attach(Client: typeof Resumption): void {
    const opened = this.#opened;
    if (this.#client !== undefined || opened === undefined) return;
    if (this.#control.remote === this) this.#control.remote = undefined;
    const client = this.#client = new Client(this.#target, this.#control, this.#background);
    client.opened(...opened);
    this.#opened = undefined;
    if (this.#stop !== undefined) client.cancel(this.#stop);
  }
}
