// Notices a stream the server keeps running, and only then loads resume.ts (most apps never
// need it); the load starts as the stream opens, so a later drop finds the client there.

import type { Accumulator } from "../core/accumulator.ts";
import { type CallControl, type Cancellable, noop } from "./call_control.ts";
import { CORE_KIT } from "./core_kit.ts";
import { lazy } from "./lazy.ts";
import type { Resumption } from "./resume.ts";
import type { CallTarget } from "./retry_loop.ts";
import type { SseFeed } from "./sse_feed.ts";
import type { AttemptStream, StreamRequest } from "./transport.ts";

export const STREAM_ID_HEADER = "x-stopstream-stream-id";

const loadClient = lazy(
  "the resumable-stream client",
  () => import("./resume.ts").then((module) => module.resumption(CORE_KIT)),
);

/** One target's stream: not resumable until a response says so, then the resume client answers. */
export class ResumableStream implements AttemptStream, Cancellable {
  #target: CallTarget;
  #control: CallControl;
  /** OpenAI Responses background mode: resumable from the first response on. */
  #background: boolean;
  #client: Resumption | undefined = undefined;
  /** A stream that opened while the client was loading: the client is told of it when loaded. */
  #opened: [string | undefined, SseFeed, Accumulator] | undefined = undefined;
  /** Set while the client loads: the caller's stop, to pass on once it is there. */
  #stop: Error | undefined = undefined;

  constructor(target: CallTarget, control: CallControl) {
    this.#target = target;
    this.#control = control;
    this.#background = target.protocol.name === "openai-responses" &&
      target.body.background === true;
  }

  get acc(): Accumulator | undefined {
    return this.#client?.acc;
  }

  get feed(): SseFeed | undefined {
    return this.#client?.feed;
  }

  request(): StreamRequest | undefined {
    return this.#client?.request();
  }

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
   * The event to resume after (`""`: the start), or `undefined` (then call `failure`). Waits at
   * most `headersMs` for a client still loading; one that failed to load means no resume.
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

  ended(feed: SseFeed): void {
    this.#opened = undefined;
    this.#client?.ended(feed);
  }

  failure(error: unknown): unknown {
    this.#opened = undefined;
    if (this.#control.remote === this) this.#control.remote = undefined;
    return this.#client === undefined ? error : this.#client.failure(error);
  }

  cancel(reason: Error): void {
    this.#stop = reason;
  }

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
