// Progress comments (`x-stopstream-progress: true`). A comment is a write, so the first commits
// the status. Numbers and fixed words only, never upstream text: none can leak a key or a host.
// Each is one line, with no blank line after it (see KEEP_ALIVE in keep_alive.ts).

import { ATTEMPTS_HEADER, UPSTREAM_HEADER } from "../core/constants.ts";
import { isAPIStatusError, isTimeoutError } from "../core/error_guards.ts";
import { retryAfterMs } from "../client/internal.ts";
import type { AnswerEncoder } from "./answer_encoder.ts";
import { ChunkEncoder, type RelayEvent } from "./chunks.ts";

export const PROGRESS_HEADER = "x-stopstream-progress";

export function wantsProgress(headers: Headers): boolean {
  return headers.get(PROGRESS_HEADER)?.trim().toLowerCase() === "true";
}

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

export function isComment(text: string): boolean {
  return text.charCodeAt(0) === 58; // ":"
}

/** The progress comment an event makes, if any; `t` is ms since the call began. */
class Narrator {
  readonly #startedAt = Date.now();
  /** A fallback's first request is the next attempt. */
  #attempt = 1;
  /** Characters of text written, where a continuation joins. */
  #chars = 0;

  narrate(event: RelayEvent, started: boolean): string | undefined {
    switch (event.type) {
      case "open":
        this.#attempt = event.attempt;
        return this.#comment(`open attempt=${event.attempt} status=${event.status}`);
      case "retry":
        this.#attempt = event.attempt;
        // After content, only a continuation (`onPartial: "continue"`) tries again.
        if (started) {
          return this.#comment(
            `continue attempt=${event.attempt} after_chars=${this.#chars} ` +
              `delay_ms=${event.delayMs}${reason(event.error)}`,
          );
        }
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
      case "text":
        this.#chars += event.text.length;
        return undefined;
      default:
        return undefined;
    }
  }

  #comment(text: string): string {
    return `: ${text} t=${Date.now() - this.#startedAt}\n`;
  }
}

export class ProgressEncoder extends ChunkEncoder {
  readonly #narrator = new Narrator();

  override encode(event: RelayEvent): string {
    const comment = this.#narrator.narrate(event, this.started);
    if (comment === undefined) return super.encode(event);
    // An open still goes to the encoder: what a failed attempt left waiting goes with it.
    const text = super.encode(event);
    return event.type === "open" ? comment : text + comment;
  }
}

/** Progress comments in front of another protocol's encoder (`/v1/messages`, `/v1/responses`). */
export function withProgress(encoder: AnswerEncoder): AnswerEncoder {
  const narrator = new Narrator();
  return {
    get started() {
      return encoder.started;
    },
    get startedAt() {
      return encoder.startedAt;
    },
    encode: (event) => {
      const text = encoder.encode(event);
      return (narrator.narrate(event, encoder.started) ?? "") + text;
    },
    takeBytes: (event) => encoder.takeBytes(event),
    done: encoder.done,
    fail: (failure) => encoder.fail(failure),
    keepAlive: () => encoder.keepAlive(),
  };
}

/** Which upstream answered: headers at the commit, a comment if it changed before the answer. */
export class AnswerLabel {
  #upstreamOf: (target: number) => number;
  #attempts: () => number;
  #target = 0;
  #told = "";

  constructor(upstreamOf: (target: number) => number, attempts: () => number) {
    this.#upstreamOf = upstreamOf;
    this.#attempts = attempts;
  }

  note(event: RelayEvent): void {
    if (event.type === "fallback") this.#target = event.index;
  }

  headers(): Record<string, string> {
    const upstream = this.#upstreamOf(this.#target);
    const attempts = this.#attempts();
    this.#told = `${upstream} ${attempts}`;
    return { [UPSTREAM_HEADER]: String(upstream), [ATTEMPTS_HEADER]: String(attempts) };
  }

  late(): string {
    const upstream = this.#upstreamOf(this.#target);
    const attempts = this.#attempts();
    if (`${upstream} ${attempts}` === this.#told) return "";
    return `: upstream index=${upstream} attempts=${attempts}\n`;
  }
}

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

/** A Map, not an object: an error's name is anyone's word. */
const KINDS: ReadonlyMap<string, string> = new Map([
  ["ConnectionError", "connection"],
  ["UpstreamStreamError", "upstream_error"],
  ["StreamProtocolError", "protocol"],
  ["RedirectError", "redirect"],
]);
