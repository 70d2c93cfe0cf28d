import { type CallPlan, wrapDecoders } from "../client/internal.ts";
import type { EventOutcome, StreamDecoder } from "../protocols/protocol.ts";
import { joinLogprobs, UPSTREAM_FIELDS, upstreamFields } from "./upstream_fields.ts";

/** The logprobs of the attempt that answered, per list (`content`, `refusal`), in order. */
interface LogprobsTap {
  lists: Record<string, unknown> | undefined;
}

/** For a `stream: false` answer (the client result has no field); each attempt starts over. */
export function collectLogprobs(plan: CallPlan): LogprobsTap {
  const tap: LogprobsTap = { lists: undefined };
  wrapDecoders(plan, "openai-chat", (decoder) => new LogprobsDecoder(decoder, tap));
  return tap;
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
