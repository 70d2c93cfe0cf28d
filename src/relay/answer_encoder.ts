// What the streaming answer's writers ask of an encoder, whatever protocol the caller speaks, and
// the part every non-chat encoder shares: an upstream of the caller's own protocol is passed on.

import { AnswerStart } from "./answer_start.ts";
import type { RelayFailure } from "./error_response.ts";
import type { RelayEvent } from "./chunks.ts";
import { KEEP_ALIVE } from "./keep_alive.ts";

/** The client's events → the caller's protocol, as SSE text. */
export interface AnswerEncoder {
  /** Something of the answer was written: retries are over, keep-alives may be events. */
  readonly started: boolean;
  /** When the answer's first piece was written (`Date.now()`), 0 before. */
  readonly startedAt: number;
  /** The SSE text for `event`, or `""` for what the caller must not see (retries, opens). */
  encode(event: RelayEvent): string;
  /** A forwarded piece's own bytes, when they may go out as they came (chat only). */
  takeBytes(event: RelayEvent): Uint8Array | undefined;
  /** After the last event of a successful answer (`data: [DONE]` for chat). */
  readonly done: string;
  /** Ends a failed answer, in the caller's protocol, with no success terminator. */
  fail(failure: RelayFailure): string;
  /** Written when the answer is silent. */
  keepAlive(): string;
}

/** The answer in the caller's protocol: passed on from its own protocol, translated otherwise. */
export abstract class InboundEncoder extends AnswerStart implements AnswerEncoder {
  #passing = false;

  encode(event: RelayEvent): string {
    if (event.type === "passed") {
      event.sealed = true;
      this.#passing = true;
      if (event.text !== "") this.begin();
      return event.text;
    }
    // An attempt begins: whether its events are passed on is marked by its decoder.
    if (event.type === "open") this.#passing = false;
    return this.#passing ? "" : this.translate(event);
  }

  takeBytes(): undefined {
    return undefined;
  }

  abstract readonly done: string;
  abstract fail(failure: RelayFailure): string;
  protected abstract translate(event: RelayEvent): string;

  keepAlive(): string {
    return KEEP_ALIVE;
  }
}
