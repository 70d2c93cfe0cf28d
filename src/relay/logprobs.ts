/**
 * The `logprobs` of an `openai-chat` answer the relay holds whole (`stream: false`). The client
 * keeps none (its result has no field for them), and a streaming caller gets them on each
 * chunk (forward.ts); a caller who asked for the answer at once gets them here, joined into
 * the one `logprobs` object of its `chat.completion`, as OpenAI's own non-streaming answer has.
 *
 * @module
 */

import type { CallPlan } from "../retry_loop.ts";
import type { EventOutcome, StreamDecoder } from "../protocols/protocol.ts";
import { wrapOpenAIChatDecoders } from "./forward.ts";
import { joinLogprobs, UPSTREAM_FIELDS, upstreamFields } from "./upstream_fields.ts";

/**
 * The logprobs of the attempt that answered, per list (`content`, `refusal`), in order.
 *
 * @example
 * ```ts
 * const tap: LogprobsTap = { lists: undefined };
 * ```
 */
export interface LogprobsTap {
  lists: Record<string, unknown> | undefined;
}

/**
 * Makes the `openai-chat` targets of `plan` join their events' logprobs into `tap` (a new
 * attempt starts over: its answer is the one that counts; an answer of another protocol has
 * none, see `result.target`).
 *
 * @example
 * ```ts
 * const plan = planCall(options);
 * const tap: LogprobsTap = { lists: undefined };
 * collectLogprobs(plan, tap);
 * const result = await new ChatStream(plan).result; // tap.lists: { content: [{ token, logprob, … }] }
 * ```
 */
export function collectLogprobs(plan: CallPlan, tap: LogprobsTap): void {
  wrapOpenAIChatDecoders(plan, (decoder) => new LogprobsDecoder(decoder, tap));
}

class LogprobsDecoder implements StreamDecoder {
  #inner: StreamDecoder;
  #tap: LogprobsTap;

  constructor(inner: StreamDecoder, tap: LogprobsTap) {
    this.#inner = inner;
    this.#tap = tap;
    tap.lists = undefined;
  }

  onEvent(event: string | undefined, data: string): EventOutcome {
    // Decoded first: what is wrong with an event, the decoder says.
    const outcome = this.#inner.onEvent(event, data);
    const logprobs = UPSTREAM_FIELDS.test(data) ? upstreamFields(data)?.logprobs : undefined;
    if (logprobs !== undefined) this.#tap.lists = joinLogprobs(this.#tap.lists ?? {}, logprobs);
    return outcome;
  }

  endedCleanly(): boolean {
    return this.#inner.endedCleanly();
  }
}
