/**
 * Resumable streams. When the server keeps a stream running after the connection to it drops,
 * a drop or a stall goes on with the same answer over a new connection instead of failing it,
 * and a stop cancels the stream on the server. Two servers keep one:
 *
 * - the stopstream relay, when a response carries `x-stopstream-stream-id` and its events carry
 *   `id:`: resumed with `GET {baseURL}/streams/{id}` and `Last-Event-ID`, cancelled with
 *   `POST {baseURL}/streams/{id}/cancel`;
 * - OpenAI Responses background mode (`body.background: true`): resumed with
 *   `GET {baseURL}/responses/{id}?stream=true&starting_after={sequence_number}`, cancelled with
 *   `POST {baseURL}/responses/{id}/cancel`.
 *
 * A resume is not a new answer: the new connection feeds the same decoder and accumulator, so
 * tool-call slots and open blocks carry over. Both servers number events with consecutive
 * integers (the relay from 1), so a resumed connection is checked twice, at no cost per event:
 * its first event must be the one right after the last event processed (a server that ignored
 * the position and replays from the start is refused before anything repeats), and when it
 * ends or drops, the events it fed must take the number exactly that far (a server that left
 * events out, or repeated some, further on). Either, or an event without a number, ends the
 * call as a stream that could not be resumed.
 *
 * Loaded on first use: resumable.ts loads it when a response says the server keeps the stream,
 * and hands it the core's helpers (core_kit.ts), so it imports only types from the core.
 *
 * @module
 */

import type { EventSourceMessage } from "eventsource-parser";
import type { Accumulator } from "./accumulator.ts";
import type { CallControl, Cancellable } from "./call_control.ts";
import type { CoreKit } from "./core_kit.ts";
import type { StreamProtocolError } from "./error_classes.ts";
import { core, useCore } from "./lazy_core.ts";
import type { CallTarget } from "./retry_loop.ts";
import type { SseFeed } from "./sse_feed.ts";
import type { StreamRequest } from "./transport.ts";

/** A cancel is sent on the way out and nobody waits for it; this bounds how long it may run. */
const CANCEL_TIMEOUT_MS = 5_000;
/** An event id the client can check the next connection against: a safe decimal integer. */
const EVENT_NUMBER = /^(?:0|[1-9]\d{0,14})$/;
/**
 * A stream or response id as it may go into a URL path: a server's word is not trusted to stay
 * one path segment (`..` would not).
 */
const STREAM_ID = /^[\w-]{1,200}$/;

/**
 * The resumable side of one target's stream: learns from the first response whether the
 * server keeps the stream, turns a drop into a resume (the loop decides when), checks that
 * the new connection goes on exactly where the old one stopped, and cancels the stream on the
 * server when the caller stops.
 *
 * @example
 * ```ts
 * const Client = resumption(CORE_KIT);
 * const client = new Client(target, control, false);
 * const after = client.resumeAfter(error, exhausted); // "12": resume after event 12
 * const error2 = after === undefined ? client.failure(error) : error;
 * ```
 */
export class Resumption implements Cancellable {
  #target: CallTarget;
  #control: CallControl;
  /** OpenAI Responses background mode; otherwise a relay stream, when a response says so. */
  #background: boolean;
  /** The relay's stream id, once a response carried one. */
  #streamId: string | undefined = undefined;
  /** The stream being read and the answer it builds, once a response opened one. */
  #feed: SseFeed | undefined = undefined;
  #acc: Accumulator | undefined = undefined;
  /** Whether the current connection got as far as its body (a cut, not a failed resume). */
  #open = false;
  /** While resuming: the event the next connection starts after (`""`: from the start). */
  #after: string | undefined = undefined;
  /** `feed.events` when `#after` was taken: what a resumed connection fed is counted from it. */
  #fed = 0;
  /** A resumed connection that did not feed its events in order: the call's failure. */
  #refused: StreamProtocolError | undefined = undefined;
  /** The failure that cut the stream: the call's failure when it cannot be resumed after all. */
  #cut: unknown = undefined;

  /** `background`: the call is in Responses background mode (resumable.ts decides it). */
  constructor(target: CallTarget, control: CallControl, background: boolean) {
    this.#target = target;
    this.#control = control;
    this.#background = background;
  }

  /** The answer the next attempt goes on with, while resuming. */
  get acc(): Accumulator | undefined {
    return this.#after === undefined ? undefined : this.#acc;
  }

  /** The feed the next connection goes on with, while resuming. */
  get feed(): SseFeed | undefined {
    return this.#after === undefined ? undefined : this.#feed;
  }

  /** The next attempt's request while resuming: a `GET` for the rest of the stream. */
  request(): StreamRequest | undefined {
    const after = this.#after;
    if (after === undefined) return undefined;
    // Counted when the reconnect is made: a resume refused by the deadline or the retry budget
    // never happened.
    this.#acc!.resumes++;
    const headers = this.#headers("text/event-stream");
    if (this.#background) {
      const query = `?stream=true&starting_after=${after}`;
      return { method: "GET", url: this.#url("responses", this.#acc!.id, query), headers };
    }
    if (after !== "") headers.set("last-event-id", after);
    return { method: "GET", url: this.#url("streams", this.#streamId!, ""), headers };
  }

  /**
   * A response is a stream: a new one (resumable when `id`, its `x-stopstream-stream-id`, is a
   * usable stream id, or in background mode) or the rest of this one.
   */
  opened(id: string | undefined, feed: SseFeed, acc: Accumulator): void {
    this.#open = true;
    if (this.#after !== undefined) {
      feed.reconnect(this.#expectNext(this.#after));
      return;
    }
    this.#feed = feed;
    this.#acc = acc;
    this.#streamId = !this.#background && id !== undefined && STREAM_ID.test(id) ? id : undefined;
    if (this.#background || this.#streamId !== undefined) this.#control.remote = this;
  }

  /**
   * After a failed attempt: the event to resume after (`""`: the start) when the stream can go
   * on over a new connection, else `undefined` (then call {@linkcode Resumption.failure}).
   */
  resumeAfter(error: unknown, exhausted: boolean): string | undefined {
    const feed = this.#feed;
    if (feed === undefined) return undefined;
    const after = this.#position(feed);
    this.#refused = this.#outOfOrder(feed, after);
    if (this.#refused !== undefined || exhausted) return undefined;
    // A drop, a stall, a passing failure of a resume. An error the stream itself reported is
    // stored on the server with it: resuming would only replay it.
    if (!core.isRetryable(error) || core.isUpstreamStreamError(error)) return undefined;
    if (after === undefined) return undefined;
    if (this.#open || this.#cut === undefined) this.#cut = error;
    this.#open = false;
    this.#after = after;
    this.#fed = feed.events;
    return after;
  }

  /** The stream ended: a resumed one must have fed every event up to its last, once. */
  ended(feed: SseFeed): void {
    const refused = this.#outOfOrder(feed, this.#position(feed));
    if (refused !== undefined) throw refused;
  }

  /**
   * After a failed attempt that is not resumed: ends this stream and returns the error the
   * call goes on with. A resume that found the stream gone (404, 410) fails as the cut did.
   */
  failure(error: unknown): unknown {
    const gone = this.#after !== undefined && core.isAPIStatusError(error) &&
      (error.status === 404 || error.status === 410);
    const cut = this.#cut;
    const refused = this.#refused;
    this.#refused = undefined;
    this.#feed = undefined;
    this.#acc = undefined;
    this.#streamId = undefined;
    this.#after = undefined;
    this.#cut = undefined;
    this.#open = false;
    if (this.#control.remote === this) this.#control.remote = undefined;
    return refused ?? (gone ? cut : error);
  }

  /** The caller stopped (`CallControl.stop`, once): cancels the stream on the server, unawaited. */
  cancel(reason: Error): void {
    // Only the caller's stop ends the answer on the server. When the client gives up by itself
    // (the total timeout), the answer stays there for whoever resumes it.
    if (!core.isInterruptedError(reason) || this.#feed === undefined) return;
    const id = this.#background ? this.#responseId() : this.#streamId;
    if (id === undefined) return; // no response.created yet: nothing to name
    const url = this.#url(this.#background ? "responses" : "streams", id, "/cancel");
    // Redirects by hand, as for every request that carries the key: fetch would follow one to
    // another origin with `x-api-key` (or Azure's `api-key`) still on it. Best effort: a refused
    // redirect, like a fetch that throws, only means the cancel did not reach the server.
    core.fetchFollowing(this.#target.fetch, url, {
      method: "POST",
      headers: this.#headers("application/json"),
      signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS),
    }).then((response) => response.body?.cancel(), core.noop).catch(core.noop);
  }

  /** Where the stream stands after what was processed, if the next connection can prove it. */
  #position(feed: SseFeed): string | undefined {
    if (this.#background) {
      // The response id arrives with `response.created`; before it there is nothing to name.
      const cursor = feed.decoder.cursor;
      const numbered = Number.isSafeInteger(cursor) && (cursor as number) >= 0;
      return this.#responseId() !== undefined && numbered ? String(cursor) : undefined;
    }
    if (this.#streamId === undefined) return undefined;
    if (feed.events === 0) return "";
    const id = feed.lastEventId;
    return id !== undefined && EVENT_NUMBER.test(id) ? id : undefined;
  }

  /** The background response's id, once `response.created` gave a usable one. */
  #responseId(): string | undefined {
    const id = this.#acc!.id;
    return STREAM_ID.test(id) ? id : undefined;
  }

  /**
   * While resuming: whether the events fed since `#after` take the stream exactly to `at` (a
   * count and a compare, once per connection); the refusal when they do not.
   */
  #outOfOrder(feed: SseFeed, at: string | undefined): StreamProtocolError | undefined {
    const after = this.#after;
    if (after === undefined) return undefined;
    const count = feed.events - this.#fed;
    // `at` is a checked decimal integer, or `""` before the first event (as `after` may be).
    if (at !== undefined && Number(at) === Number(after) + count) return undefined;
    return refused(
      `sent ${count} events after event ${after || 0} but ended at event ${at ?? "unnumbered"}`,
      this.#background,
    );
  }

  /** The check of a resumed connection's first event: the one right after `after` (`""`: 1). */
  #expectNext(after: string): (message: EventSourceMessage) => void {
    const next = Number(after) + 1;
    if (this.#background) {
      return (message) => {
        // An `event: error` with plain text is the server's report, not a repeat.
        if (message.event === "error") return;
        const got = sequenceNumber(message.data);
        if (got !== next) throw notNext(after, got, true);
      };
    }
    const expected = String(next);
    return (message) => {
      if (message.id !== expected) throw notNext(after, message.id, false);
    };
  }

  /** Request headers for a resume or a cancel: the original ones (keys included), no body. */
  #headers(accept: string): Headers {
    const headers = new Headers(this.#target.request.headers);
    headers.delete("content-type");
    headers.set("accept", accept);
    return headers;
  }

  #url(collection: "streams" | "responses", id: string, rest: string): string {
    return core.joinURL(
      this.#target.info.baseURL,
      `/${collection}/${encodeURIComponent(id)}${rest}`,
    );
  }
}

function sequenceNumber(data: string): unknown {
  return (core.parseOr(data, undefined) as { sequence_number?: unknown } | null)?.sequence_number;
}

function notNext(after: string, got: unknown, background: boolean): StreamProtocolError {
  return refused(
    `did not start right after event ${after || 0} (its first event is ${got ?? "unnumbered"})`,
    background,
  );
}

/** A resumed stream refused for `what` it did, naming what the server must honour. */
function refused(what: string, background: boolean): StreamProtocolError {
  return new core.StreamProtocolError(
    `stopstream: the resumed stream ${what}, so part of the answer would be missing or ` +
      `repeated; the server must honour ${background ? "starting_after" : "Last-Event-ID"}`,
  );
}

/**
 * The resumable-stream client, given the core's helpers (core_kit.ts); loaded by resumable.ts
 * once a response says the server keeps its stream.
 *
 * @example
 * ```ts
 * const Client = resumption(CORE_KIT);
 * new Client(target, control, false).opened(streamId, feed, acc);
 * ```
 */
export function resumption(kit: CoreKit): typeof Resumption {
  useCore(kit);
  return Resumption;
}
