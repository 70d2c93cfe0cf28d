/**
 * Progress comments: with `x-stopstream-progress: true`, a streaming answer of the relay
 * narrates what happens upstream before the answer begins — each upstream request that opens,
 * each retry and its wait, each fallback — as SSE comments, which OpenAI clients ignore:
 *
 * ```text
 * : retry attempt=2 delay_ms=1000 reason=429 retry_after_ms=1000 t=4
 * : open attempt=2 status=200 t=1012
 * data: {"id":"chatcmpl-…","object":"chat.completion.chunk",…}
 * ```
 *
 * The relay holds the status back while it waits (commit.ts); a comment is a write, so the
 * first one commits the response as a token would. A failure before any comment keeps its
 * HTTP status, as without the header (a 4xx on the first request); after one, it is the error
 * event that ends the stream.
 *
 * Comments carry numbers and fixed words only, never an upstream's text: nothing in them can
 * leak a key or an internal host.
 *
 * @module
 */

import { isAPIStatusError, isTimeoutError } from "../error_guards.ts";
import { retryAfterMs } from "../retry_policy.ts";
import { ChunkEncoder, type RelayEvent } from "./chunks.ts";

/**
 * The request header that asks for progress comments (value `true`).
 *
 * @example
 * ```ts
 * headers.set(PROGRESS_HEADER, "true");
 * ```
 */
export const PROGRESS_HEADER = "x-stopstream-progress";

/**
 * Whether a request asks for progress comments (`x-stopstream-progress: true`).
 *
 * @example
 * ```ts
 * wantsProgress(new Headers({ "x-stopstream-progress": "true" })); // true
 * ```
 */
export function wantsProgress(headers: Headers): boolean {
  return headers.get(PROGRESS_HEADER)?.trim().toLowerCase() === "true";
}

/**
 * The encoder of one relayed stream: plain OpenAI chunks, or (with `progress`) chunks and
 * progress comments.
 *
 * @example
 * ```ts
 * const encoder = chunkEncoder("chatcmpl-1", "demo", false, wantsProgress(request.headers));
 * ```
 */
export function chunkEncoder(
  id: string,
  model: string,
  includeUsage: boolean,
  progress: boolean | undefined,
): ChunkEncoder {
  return progress === true
    ? new ProgressEncoder(id, model, includeUsage)
    : new ChunkEncoder(id, model, includeUsage);
}

/**
 * Whether an encoded text is a comment (progress), not an event: events begin with `data:`.
 *
 * @example
 * ```ts
 * isComment(": open attempt=1 status=200 t=3\n\n"); // true
 * ```
 */
export function isComment(text: string): boolean {
  return text.charCodeAt(0) === 58; // ":"
}

/**
 * A {@linkcode ChunkEncoder} that also writes the call's `open`, `retry`, `resume` and
 * `fallback` events as comments, each with `t`, the milliseconds since the encoder was made
 * (when the relay began the call).
 *
 * @example
 * ```ts
 * const encoder = new ProgressEncoder("chatcmpl-1", "demo", false);
 * encoder.encode({ type: "open", attempt: 1, status: 200, headers: {} }); // ": open attempt=1 status=200 t=0\n\n"
 * ```
 */
export class ProgressEncoder extends ChunkEncoder {
  readonly #startedAt = Date.now();
  /** The attempt under way: a fallback's first request is the next one. */
  #attempt = 1;

  /** The SSE text for `event`: a comment for the call's own events, else as `ChunkEncoder`. */
  override encode(event: RelayEvent): string {
    switch (event.type) {
      case "open":
        this.#attempt = event.attempt;
        super.encode(event); // what a failed attempt left waiting goes with it
        return this.#comment(`open attempt=${event.attempt} status=${event.status}`);
      case "retry":
        this.#attempt = event.attempt;
        return this.#comment(
          `retry attempt=${event.attempt} delay_ms=${event.delayMs}${reason(event.error)}`,
        );
      case "resume":
        this.#attempt = event.attempt;
        return this.#comment(
          `resume attempt=${event.attempt} after=${event.lastEventId} ` +
            `delay_ms=${event.delayMs}${reason(event.error)}`,
        );
      case "fallback":
        return this.#comment(`fallback attempt=${++this.#attempt}${reason(event.error)}`);
      default:
        return super.encode(event);
    }
  }

  #comment(text: string): string {
    return `: ${text} t=${Date.now() - this.#startedAt}\n\n`;
  }
}

/**
 * Which upstream answered a streaming call, and after how many upstream requests: what the
 * response headers said at the commit (`x-stopstream-upstream`, `x-stopstream-attempts`), and,
 * when that changed before the answer began (a fallback, a retry after the commit), the comment
 * that says what it became, written once, just before the first content:
 *
 * ```text
 * : upstream index=1 attempts=3
 * ```
 *
 * `index` is the upstream's place among the configured ones (0: the primary). Written with or
 * without `x-stopstream-progress`: a header cannot change once sent.
 *
 * @example
 * ```ts
 * const label = new AnswerLabel((target) => route.upstreamOf(target), () => upstream.calls);
 * const headers = label.headers(); // at the commit
 * out += label.late() + encoder.encode(event); // the first content
 * ```
 */
export class AnswerLabel {
  #upstreamOf: (target: number) => number;
  #attempts: () => number;
  /** The call's target under way (0: its first). */
  #target = 0;
  /** What the headers said, as `index attempts`; "" before the commit. */
  #told = "";

  constructor(upstreamOf: (target: number) => number, attempts: () => number) {
    this.#upstreamOf = upstreamOf;
    this.#attempts = attempts;
  }

  /** Notes an event before the answer begins: a fallback moves on to the next target. */
  note(event: RelayEvent): void {
    if (event.type === "fallback") this.#target = event.index;
  }

  /** The response headers, as of now: the commit. */
  headers(): Record<string, string> {
    const upstream = this.#upstreamOf(this.#target);
    const attempts = this.#attempts();
    this.#told = `${upstream} ${attempts}`;
    return { "x-stopstream-upstream": String(upstream), "x-stopstream-attempts": String(attempts) };
  }

  /** When the answer begins: the comment with what changed since the headers, or "". */
  late(): string {
    const upstream = this.#upstreamOf(this.#target);
    const attempts = this.#attempts();
    if (`${upstream} ${attempts}` === this.#told) return "";
    return `: upstream index=${upstream} attempts=${attempts}\n\n`;
  }
}

/**
 * ` reason=…` and its details: the HTTP status (and the `Retry-After` it asked for), the
 * timeout that fired, or the kind of failure; fixed words only.
 */
function reason(error: Error): string {
  if (isAPIStatusError(error)) {
    const asked = retryAfterMs(error.headers);
    return ` reason=${error.status}${
      asked === undefined ? "" : ` retry_after_ms=${Math.ceil(asked)}`
    }`;
  }
  if (isTimeoutError(error)) {
    return ` reason=timeout phase=${error.phase} timeout_ms=${error.timeoutMs}`;
  }
  return ` reason=${KINDS.get(error.name) ?? "error"}`;
}

/** Every other failure by the name of its class (a Map: an error's name is anyone's word). */
const KINDS: ReadonlyMap<string, string> = new Map([
  ["ConnectionError", "connection"],
  ["UpstreamStreamError", "upstream_error"],
  ["StreamProtocolError", "protocol"],
  ["RedirectError", "redirect"],
]);
