// One attempt: send, check the response, read the body as SSE into the decoder. With
// whole_body.ts, the only module that touches `fetch` and response bodies.

import type { Accumulator, EventSink } from "../core/accumulator.ts";
import { noop } from "../core/constants.ts";
import type { CallControl, Cancellable } from "./call_control.ts";
import { CONNECTION_LOST } from "../core/error_messages.ts";
import { APIStatusError, ConnectionError } from "../core/error_classes.ts";
import { isRedirectError } from "../core/error_guards.ts";
import type { ProtocolRequest } from "../protocols/protocol.ts";
import { credentialsOf, redactError } from "../core/redact.ts";
import { fetchFollowing } from "./redirects.ts";
import { parseOr } from "../protocols/output.ts";
import type { CallTarget } from "./plan.ts";
import { foreignStream, notAStream } from "./response.ts";
import type { ResumableStream, StreamRequest } from "./resume.ts";
import { SseFeed } from "./sse_feed.ts";
import { closeEntry, openEntry } from "./trace.ts";
import type { TraceEntry } from "../core/chat_result.ts";
import { Watchdog } from "./watchdog.ts";
import { readErrorBody, STREAM } from "./whole_body.ts";

export interface AttemptConsumer extends EventSink {
  readonly listening: boolean;
  /** The reader waits for the consumer before its next read (backpressure). */
  readonly backlogged: boolean;
  drained(): Promise<void>;
}

/** One attempt to its end: the response headers, or a typed error; `control.stop()` cancels it. */
export class Attempt implements Cancellable {
  failure: Error | undefined = undefined;
  #control: CallControl;
  #target: CallTarget;
  #request: ProtocolRequest | StreamRequest;
  #abort = new AbortController();
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined = undefined;
  #watchdog: Watchdog | undefined = undefined;
  /** Rejects the wait for headers even when an injected fetch ignores its signal. */
  #rejectSend: ((reason: Error) => void) | undefined = undefined;
  /** This request's line of `result.trace`. */
  #entry: TraceEntry | undefined;

  constructor(control: CallControl, target: CallTarget, request: ProtocolRequest | StreamRequest) {
    this.#control = control;
    this.#target = target;
    this.#request = request;
  }

  cancel(reason: Error): void {
    if (this.failure !== undefined) return;
    this.failure = reason;
    closeEntry(this.#entry, reason);
    this.#watchdog?.stop();
    this.#abort.abort(reason);
    this.#rejectSend?.(reason);
    // Not awaited: a cancel can hang on a silent peer. It resolves a pending read() at once.
    this.#reader?.cancel(reason).catch(noop);
  }

  run(
    attempt: number,
    acc: Accumulator,
    consumer: AttemptConsumer,
    stream: ResumableStream,
    maxEventBytes: number,
  ): Promise<Record<string, string>> {
    return this.guard("headers", async (watchdog) => {
      const response = await this.send();
      const headers = Object.fromEntries(response.headers);
      if (!response.ok) {
        throw new APIStatusError(response.status, headers, await readErrorBody(this, response));
      }
      await this.#checkContentType(response, headers);
      if (consumer.listening) {
        consumer.push({ type: "open", attempt, status: response.status, headers });
      }
      watchdog.arm("first-event");
      const feed = stream.feed ??
        new SseFeed(this.#target.protocol.createDecoder(acc), maxEventBytes);
      stream.opened(headers, feed, acc);
      const expected = this.#target.protocol.name;
      try {
        await this.#read(response, headers, feed, consumer, watchdog);
      } catch (error) {
        // A stop or a stall stays what it is.
        if (this.failure !== undefined) throw error;
        throw foreignStream(feed, acc, expected, error) ?? error;
      }
      // Also when it ended well: OpenRouter ends Responses streams with `[DONE]`, empty as chat.
      const foreign = foreignStream(feed, acc, expected);
      if (foreign !== undefined) throw foreign;
      stream.ended(feed);
      return headers;
    });
  }

  /** Runs `work` as the attempt in flight: watchdog stopped, errors redacted, on every path. */
  async guard<T>(
    phase: "headers" | "first-event",
    work: (watchdog: Watchdog) => Promise<T>,
  ): Promise<T> {
    this.#control.current = this;
    this.#entry = openEntry(this.#control, this.#target.info);
    const watchdog = new Watchdog(this, this.#target.timeouts);
    this.#watchdog = watchdog;
    try {
      watchdog.arm(phase);
      return await work(watchdog);
    } catch (error) {
      closeEntry(this.#entry, error);
      throw redactError(error, credentialsOf(this.#request.headers));
    } finally {
      closeEntry(this.#entry);
      watchdog.stop();
      if (this.#control.current === this) this.#control.current = undefined;
    }
  }

  /** A stop cancels `reader` (at once if already stopped). */
  hold(reader: ReadableStreamDefaultReader<Uint8Array>): void {
    this.#reader = reader;
    if (this.failure !== undefined) reader.cancel(this.failure).catch(noop);
  }

  /** Follows redirects by hand; a stop rejects it at once. */
  async send(): Promise<Response> {
    const request = this.#request;
    const { url, headers } = request;
    const signal = this.#abort.signal;
    let response: Response;
    try {
      const init: RequestInit = "method" in request
        ? { method: request.method, headers, signal }
        : { method: "POST", headers, body: request.body, signal };
      const sent = fetchFollowing(this.#target.fetch, url, init);
      // A fetch that ignores its signal must not hold a stop hostage; a late answer is released.
      sent.then((late) => {
        if (this.failure !== undefined) late.body?.cancel().catch(noop);
      }, noop);
      const cancelled = new Promise<never>((_, reject) => {
        this.#rejectSend = reject;
      });
      response = await Promise.race([sent, cancelled]);
      this.#rejectSend = undefined;
      this.#entry!.status = response.status;
    } catch (error) {
      if (this.failure === undefined && isRedirectError(error)) throw error;
      throw this.failure ?? new ConnectionError(
        "stopstream: the request could not be sent (network, DNS, TLS or CORS); check the base URL",
        { cause: error },
      );
    }
    if (this.failure !== undefined) {
      response.body?.cancel().catch(noop);
      throw this.failure;
    }
    return response;
  }

  async #checkContentType(response: Response, headers: Record<string, string>): Promise<void> {
    const type = headers["content-type"] ?? "";
    if (/^\s*text\/event-stream/i.test(type) && response.body !== null) return;
    // An SSE parser fed HTML yields zero events: that must never pass for an empty answer.
    throw notAStream(
      await readErrorBody(this, response),
      response.status,
      headers,
      this.#target.protocol,
      `${type || "no content-type"}, not an event stream`,
    );
  }

  async #read(
    response: Response,
    headers: Record<string, string>,
    feed: SseFeed,
    consumer: AttemptConsumer,
    watchdog: Watchdog,
  ): Promise<void> {
    const reader = response.body!.getReader();
    this.hold(reader);
    const text = new TextDecoder();
    let finished = false;
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          throw this.failure ?? new ConnectionError(CONNECTION_LOST, { cause: error });
        }
        if (this.failure !== undefined) throw this.failure;
        if (chunk.done) break;
        const before = feed.progress;
        feed.feed(text.decode(chunk.value, STREAM));
        if (feed.terminal) {
          finished = true;
          return;
        }
        if (feed.progress !== before) watchdog.progress();
        if (consumer.backlogged) {
          watchdog.pause();
          await consumer.drained();
          watchdog.resume();
          if (this.failure !== undefined) throw this.failure;
        }
      }
      feed.end(text.decode());
      if (!feed.terminal && !feed.decoder.endedCleanly()) {
        // Only a non-SSE body: what the server sent instead of a stream, not a cut connection.
        const stray = feed.strayBody();
        if (stray !== undefined) {
          const protocol = this.#target.protocol;
          throw notAStream(parseOr(stray, stray), response.status, headers, protocol, "no event");
        }
        throw new ConnectionError(CONNECTION_LOST);
      }
    } finally {
      if (finished) releaseAfterTerminal(reader);
      else reader.cancel().catch(noop);
    }
  }
}

const RELEASE_GRACE_MS = 100;

/**
 * A body read to its end lets the connection be reused (servers often send the final chunk a
 * packet after `[DONE]`), so it gets a moment to end before it is cancelled, never awaited.
 */
function releaseAfterTerminal(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  const timer = setTimeout(() => reader.cancel().catch(noop), RELEASE_GRACE_MS);
  // Must not keep a Node or Bun program alive.
  (timer as { unref?: () => void }).unref?.();
  reader.read().then((next) => {
    clearTimeout(timer);
    if (!next.done) reader.cancel().catch(noop); // events after [DONE] are ignored
  }, () => clearTimeout(timer));
}
