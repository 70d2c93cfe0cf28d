// Resumable streams: a drop or stall goes on over a new connection (relay `Last-Event-ID`, or
// Responses background `starting_after`). Events are numbered consecutively: a resumed connection
// must start after the last processed event and reach its last id exactly.

import { isRetryable } from "./retry_policy.ts";
import {
  isAPIStatusError,
  isInterruptedError,
  isUpstreamStreamError,
} from "../core/error_guards.ts";
import { fetchFollowing } from "./redirects.ts";
import { noop, STREAM_ID_HEADER } from "../core/constants.ts";
import { joinURL } from "../protocols/request.ts";
import { parseOr } from "../protocols/output.ts";
import { StreamProtocolError } from "../core/error_classes.ts";
import type { EventSourceMessage } from "eventsource-parser";
import type { Accumulator } from "../core/accumulator.ts";
import type { CallControl, Cancellable } from "./call_control.ts";
import type { CallTarget } from "./plan.ts";
import type { SseFeed } from "./sse_feed.ts";

/** Bounds an unawaited cancel sent on the way out. */
const CANCEL_TIMEOUT_MS = 5_000;
/** An event id the next connection can be checked against: a safe decimal integer. */
const EVENT_NUMBER = /^(?:0|[1-9]\d{0,14})$/;
/** An id that goes into a URL path: a server's word is not trusted to stay one segment. */
const STREAM_ID = /^[\w-]{1,200}$/;

/** The `GET` that goes on with a stream the server keeps. */
export interface StreamRequest {
  method: "GET";
  url: string;
  headers: Headers;
}

/** One answer's stream: resumable once a response says the server keeps it running. */
export class ResumableStream implements Cancellable {
  #target: CallTarget;
  #control: CallControl;
  /** OpenAI Responses background mode: resumable from the first response on. */
  #background: boolean;
  #streamId: string | undefined = undefined;
  #feed: SseFeed | undefined = undefined;
  #acc: Accumulator | undefined = undefined;
  /** Whether the current connection got as far as its body (a cut, not a failed resume). */
  #open = false;
  /** While resuming: the event the next connection starts after (`""`: from the start). */
  #after: string | undefined = undefined;
  /** `feed.events` when `#after` was taken: what a resumed connection fed is counted from it. */
  #fed = 0;
  #refused: StreamProtocolError | undefined = undefined;
  /** The failure that cut the stream: the call's failure if it cannot be resumed after all. */
  #cut: unknown = undefined;

  constructor(target: CallTarget, control: CallControl) {
    this.#target = target;
    this.#control = control;
    this.#background = target.protocol.name === "openai-responses" &&
      target.body.background === true;
  }

  get acc(): Accumulator | undefined {
    return this.#after === undefined ? undefined : this.#acc;
  }

  get feed(): SseFeed | undefined {
    return this.#after === undefined ? undefined : this.#feed;
  }

  request(): StreamRequest | undefined {
    const after = this.#after;
    if (after === undefined) return undefined;
    // Counted here: a resume refused by the deadline or the retry budget never happened.
    this.#acc!.resumes++;
    const headers = this.#headers("text/event-stream");
    if (this.#background) {
      const query = `?stream=true&starting_after=${after}`;
      return { method: "GET", url: this.#url("responses", this.#acc!.id, query), headers };
    }
    if (after !== "") headers.set("last-event-id", after);
    return { method: "GET", url: this.#url("streams", this.#streamId!, ""), headers };
  }

  opened(headers: Record<string, string>, feed: SseFeed, acc: Accumulator): void {
    const id = headers[STREAM_ID_HEADER];
    if (id === undefined && !this.#background && this.#feed === undefined) return;
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

  /** The event to resume after (`""`: the start), or `undefined` (then call `failure`). */
  resumeAfter(error: unknown, exhausted: boolean): string | undefined {
    const feed = this.#feed;
    if (feed === undefined) return undefined;
    const after = this.#position(feed);
    this.#refused = this.#outOfOrder(feed, after);
    if (this.#refused !== undefined || exhausted) return undefined;
    // An error the stream itself reported is stored with it on the server: resuming replays it.
    if (!isRetryable(error) || isUpstreamStreamError(error)) return undefined;
    if (after === undefined) return undefined;
    if (this.#open || this.#cut === undefined) this.#cut = error;
    this.#open = false;
    this.#after = after;
    this.#fed = feed.events;
    return after;
  }

  /** Throws unless a resumed stream fed every event up to its last, once. */
  ended(feed: SseFeed): void {
    const refused = this.#outOfOrder(feed, this.#position(feed));
    if (refused !== undefined) throw refused;
  }

  /** Ends this stream; a resume that found it gone (404, 410) fails as the cut did. */
  failure(error: unknown): unknown {
    if (this.#control.remote === this) this.#control.remote = undefined;
    const gone = this.#after !== undefined && isAPIStatusError(error) &&
      (error.status === 404 || error.status === 410);
    return this.#refused ?? (gone ? this.#cut : error);
  }

  cancel(reason: Error): void {
    // Only the caller's stop ends the answer on the server; after a total timeout it stays
    // there for whoever resumes it.
    if (!isInterruptedError(reason) || this.#feed === undefined) return;
    const id = this.#background ? this.#responseId() : this.#streamId;
    if (id === undefined) return; // no response.created yet: nothing to name
    const url = this.#url(this.#background ? "responses" : "streams", id, "/cancel");
    // Redirects by hand, as for every keyed request; a refused one only means no cancel.
    fetchFollowing(this.#target.fetch, url, {
      method: "POST",
      headers: this.#headers("application/json"),
      signal: AbortSignal.timeout(CANCEL_TIMEOUT_MS),
    }).then((response) => response.body?.cancel(), noop).catch(noop);
  }

  #position(feed: SseFeed): string | undefined {
    if (this.#background) {
      const cursor = feed.decoder.cursor;
      const numbered = Number.isSafeInteger(cursor) && (cursor as number) >= 0;
      return this.#responseId() !== undefined && numbered ? String(cursor) : undefined;
    }
    if (this.#streamId === undefined) return undefined;
    if (feed.events === 0) return "";
    const id = feed.lastEventId;
    return id !== undefined && EVENT_NUMBER.test(id) ? id : undefined;
  }

  #responseId(): string | undefined {
    const id = this.#acc!.id;
    return STREAM_ID.test(id) ? id : undefined;
  }

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

  #expectNext(after: string): (message: EventSourceMessage) => void {
    const next = Number(after) + 1;
    if (this.#background) {
      return (message) => {
        // An `event: error` with plain text is the server's report, not a repeat.
        if (message.event === "error") return;
        const event = parseOr(message.data, null) as { sequence_number?: unknown } | null;
        if (event?.sequence_number !== next) throw notNext(after, event?.sequence_number, true);
      };
    }
    const expected = String(next);
    return (message) => {
      if (message.id !== expected) throw notNext(after, message.id, false);
    };
  }

  #headers(accept: string): Headers {
    const headers = new Headers(this.#target.request.headers);
    headers.delete("content-type");
    headers.set("accept", accept);
    return headers;
  }

  #url(collection: "streams" | "responses", id: string, rest: string): string {
    return joinURL(
      this.#target.info.baseURL,
      `/${collection}/${encodeURIComponent(id)}${rest}`,
    );
  }
}

function notNext(after: string, got: unknown, background: boolean): StreamProtocolError {
  return refused(
    `did not start right after event ${after || 0} (its first event is ${got ?? "unnumbered"})`,
    background,
  );
}

function refused(what: string, background: boolean): StreamProtocolError {
  return new StreamProtocolError(
    `stopstream: the resumed stream ${what}, so part of the answer would be missing or ` +
      `repeated; the server must honour ${background ? "starting_after" : "Last-Event-ID"}`,
  );
}
