/**
 * The non-streaming answer of the relay (`stream` absent or `false`): nothing of the answer
 * reaches the caller until all of it exists, so a failure anywhere before that is retried (and
 * falls back) like any other. The status waits for the commit time (see `commit.ts`); after
 * it, the response is a 200 whose body starts with spaces, one every `probeMs` — how a Worker
 * notices a caller who left — and ends with the `chat.completion`, or with an OpenAI error
 * object when the call failed after all.
 *
 * @module
 */

import { COMMIT, commitTiming, raceCommit } from "./commit.ts";
import { describeFailure } from "./describe_failure.ts";
import { errorBody, errorResponse } from "./error_response.ts";

/**
 * One relayed non-streaming call, ready to be turned into a response.
 *
 * @example
 * ```ts
 * const call: RelayedAnswer = { answer, abort, keepAliveMs: 15_000, secrets: [], attempts: () => 1 };
 * ```
 */
export interface RelayedAnswer {
  /** The JSON text of the whole answer and the headers that go with it; rejects on failure. */
  answer: Promise<{ json: string; headers: Record<string, string> }>;
  /** Aborting it stops the upstream call (wired into `streamChat`'s `signal`). */
  abort: AbortController;
  keepAliveMs: number;
  /** Upstream keys to scrub from error messages. */
  secrets: readonly string[];
  /** How many upstream requests have been made so far. */
  attempts: () => number;
}

const JSON_TYPE = "application/json; charset=utf-8";
/** JSON allows leading whitespace: what a waiting caller gets, one byte at a time. */
const PROBE = new Uint8Array([0x20]);

/**
 * The answer with its own status if it is ready (or failed) within the commit time; otherwise
 * a 200 committed now, written to until the answer is ready.
 *
 * @example
 * ```ts
 * return await jsonResponse({ answer, abort, keepAliveMs, secrets, attempts });
 * ```
 */
export async function jsonResponse(call: RelayedAnswer): Promise<Response> {
  const { commitMs, probeMs } = commitTiming(call.keepAliveMs);
  try {
    const first = await raceCommit(call.answer, commitMs);
    if (first !== COMMIT) {
      return new Response(first.json, { headers: { "content-type": JSON_TYPE, ...first.headers } });
    }
  } catch (error) {
    return errorResponse(describeFailure(error, call.secrets), {
      "x-stopstream-attempts": String(call.attempts()),
    });
  }
  const headers = {
    "content-type": JSON_TYPE,
    "cache-control": "no-cache, no-transform",
    // A compressor would hold the spaces back (JSON is compressed by default, by workerd
    // locally and by Cloudflare's edge); a response that names its encoding is left alone.
    "content-encoding": "identity",
    "x-stopstream-attempts": String(call.attempts()),
  };
  return new Response(probedBody(call, probeMs), { headers });
}

function probedBody(call: RelayedAnswer, probeMs: number): ReadableStream<Uint8Array> {
  let closed = false;
  let probe: ReturnType<typeof setInterval> | undefined;
  const end = (controller: ReadableStreamDefaultController<Uint8Array>, json: string): void => {
    if (closed) return;
    closed = true;
    clearInterval(probe);
    controller.enqueue(new TextEncoder().encode(json));
    controller.close();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(PROBE);
      probe = setInterval(() => controller.enqueue(PROBE), probeMs);
      call.answer.then(
        ({ json }) => end(controller, json),
        (error: unknown) =>
          end(controller, JSON.stringify(errorBody(describeFailure(error, call.secrets)))),
      );
    },
    cancel(reason) {
      // The caller disconnected: stop the upstream at once.
      closed = true;
      clearInterval(probe);
      call.abort.abort(reason ?? new Error("the caller closed the response"));
    },
  });
}
