// The errors the relay itself writes about a resumable stream (its restart, its expiry, a reader
// refused), in its own protocol: an SDK must see an error, never a shorter answer taken for whole.

import { errorResponse, type RelayFailure } from "../error_response.ts";
import { encoderFor, INBOUND } from "../inbound.ts";
import { ResponsesEncoder } from "../responses_events.ts";
import type { StreamAnswer } from "./stream_store.ts";
import type { StartPlan } from "./wire.ts";

/** A stream whose protocol is not known (a plan that could not be read): OpenAI chat's shape. */
const UNKNOWN: StreamAnswer = { protocol: "openai-chat", id: "", model: "" };

export class StreamErrors {
  readonly #answer: StreamAnswer;

  constructor(answer: StreamAnswer = UNKNOWN) {
    this.#answer = answer;
  }

  /** An HTTP error in the stream's protocol's error shape. */
  response(failure: RelayFailure, headers?: HeadersInit): Response {
    return errorResponse(failure, headers, INBOUND[this.#answer.protocol].errorBody);
  }

  /**
   * The events that end the stream as failed, for a reader that got `events` events: Responses
   * events carry a `sequence_number`, and the events so far took 0 to `events - 1`.
   */
  event(failure: RelayFailure, events: number): string {
    const { protocol, id, model } = this.#answer;
    const encoder = protocol === "openai-responses"
      ? new ResponsesEncoder(id, model, events)
      : encoderFor({ id, model, includeUsage: false, protocol });
    return encoder.fail(failure);
  }
}

/** What a stream's row keeps of its plan's answer. */
export function answerOf({ chat }: StartPlan): StreamAnswer {
  return { protocol: chat.protocol ?? "openai-chat", id: chat.id, model: chat.model };
}
