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

/** An event whose choice carries logprobs (an object, not `null`). */
const HAS_LOGPROBS = /"logprobs"\s*:\s*\{/;

/**
 * The logprobs of the attempt that answered, per list (`content`, `refusal`), in order.
 *
 * @example
 * ```ts
 * const tap: LogprobsTap = { lists: undefined };
 * ```
 */
export interface LogprobsTap {
  lists: Record<string, unknown[]> | undefined;
}

/**
 * Makes the `openai-chat` targets of `plan` join their events' logprobs into `tap` (a new
 * attempt starts over: its answer is the one that counts).
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
  for (const target of plan.targets) {
    const protocol = target.protocol;
    if (protocol.name === "openai-chat" && "createDecoder" in protocol) {
      target.protocol = {
        ...protocol,
        createDecoder: (acc) => new LogprobsDecoder(protocol.createDecoder(acc), tap),
      };
    }
  }
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
    if (HAS_LOGPROBS.test(data)) {
      const logprobs = JSON.parse(data)?.choices?.[0]?.logprobs;
      if (typeof logprobs === "object" && logprobs !== null) {
        const lists = this.#tap.lists ??= {};
        for (const key in logprobs) {
          const list = logprobs[key];
          if (Array.isArray(list)) { for (const entry of list) (lists[key] ??= []).push(entry); }
        }
      }
    }
    return outcome;
  }

  endedCleanly(): boolean {
    return this.#inner.endedCleanly();
  }
}
