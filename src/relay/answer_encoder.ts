// What the streaming answer's writers ask of an encoder, whatever protocol the caller speaks, and
// the part every non-chat encoder shares: an upstream of the caller's own protocol is passed on.

import { AnswerStart } from "./answer_start.ts";
import type { ChatResult } from "../core/chat_result.ts";
import type { RelayFailure } from "./error_response.ts";
import type { RelayEvent } from "./chunks.ts";
import { KEEP_ALIVE } from "./keep_alive.ts";

/** A tool call's first event, as the client decoded it. */
export type ToolCallEvent = Extract<RelayEvent, { type: "tool-call" }>;

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
  readonly done = "";
  protected readonly id: string;
  protected readonly model: string;
  #passing = false;
  /** By the client's tool call index: where the encoder wrote it, or -1 for a call it left out. */
  #calls: number[] = [];

  constructor(id: string, model: string) {
    super();
    this.id = id;
    this.model = model;
  }

  encode(event: RelayEvent): string {
    if (event.type === "passed") {
      event.sealed = true;
      this.#passing = true;
      if (event.text !== "") this.begin();
      return event.text;
    }
    // An attempt begins: whether its events are passed on is marked by its decoder.
    if (event.type === "open") this.#passing = false;
    return this.#passing ? "" : this.#translate(event);
  }

  #translate(event: RelayEvent): string {
    switch (event.type) {
      case "text":
        return this.text(event.text);
      case "reasoning":
        return this.reasoning(event.text);
      case "tool-call": {
        // A call the provider ran is not the caller's to answer: only its own tools' calls go out.
        if (event.providerExecuted === true) {
          this.#calls[event.index] = -1;
          return "";
        }
        return this.toolCall(event);
      }
      case "tool-call-delta": {
        const at = this.#calls[event.index] ?? -1;
        return at < 0 ? "" : this.toolCallDelta(at, event.argumentsDelta);
      }
      case "finish":
        return this.finish(event.result);
      default:
        return "";
    }
  }

  /** Records where the call of the client's `index` was written, for its deltas. */
  protected wroteCall(index: number, at: number): void {
    this.#calls[index] = at;
  }

  /** The answer's opening event, once, before anything else of it; `""` after. */
  protected start(): string {
    if (this.started) return "";
    this.begin();
    return this.opening();
  }

  takeBytes(): undefined {
    return undefined;
  }

  abstract fail(failure: RelayFailure): string;
  protected abstract opening(): string;
  protected abstract text(text: string): string;
  protected abstract reasoning(text: string): string;
  /** Calls `wroteCall` with where it wrote the call. */
  protected abstract toolCall(event: ToolCallEvent): string;
  /** `at` is where `toolCall` wrote the call. */
  protected abstract toolCallDelta(at: number, delta: string): string;
  protected abstract finish(result: ChatResult): string;

  keepAlive(): string {
    return KEEP_ALIVE;
  }
}
