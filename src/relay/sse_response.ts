// The status waits for an upstream 200 or the commit time, so an early failure is a real HTTP
// error. Workers learn a caller left only when a write fails: keep-alives are those writes.

import { ATTEMPTS_HEADER } from "../core/constants.ts";
import { AnswerWriter, type RelayedStream } from "./answer_writer.ts";
import type { RelayEvent } from "./chunks.ts";
import { COMMIT, commitTiming, raceCommit } from "./commit.ts";
import { describeFailure } from "./describe_failure.ts";
import { errorResponse } from "./error_response.ts";
import { AnswerLabel } from "./progress.ts";

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

export async function sseResponse(call: RelayedStream): Promise<Response> {
  const commitAt = Date.now() + commitTiming(call.keepAliveMs).commitMs;
  // Forwarded upstream events come through as well (forward.ts).
  const iterator = call.stream[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<RelayEvent>> | undefined = iterator.next();
  let buffered = "";
  let ended = false;
  const label = new AnswerLabel(call.upstreamOf ?? ((target) => target), call.attempts);
  try {
    while (pending !== undefined) {
      const step = await raceCommit(pending, commitAt - Date.now());
      if (step === COMMIT) break;
      pending = undefined;
      if (step.done) {
        ended = true;
        break;
      }
      const event = step.value;
      label.note(event);
      buffered = call.encoder.encode(event);
      if (buffered === "") pending = iterator.next();
      // An upstream 200 commits too: then keep-alives are the writes that notice a caller left.
      if (event.type === "open") break;
    }
  } catch (error) {
    return errorResponse(describeFailure(error, call.secrets), {
      [ATTEMPTS_HEADER]: String(call.attempts()),
    }, call.errorBody);
  }
  const headers = new Headers({ ...SSE_HEADERS, ...label.headers() });
  const writer = new AnswerWriter(call, iterator, pending, label);
  return new Response(writer.start(buffered, ended), { headers });
}
