import { ATTEMPTS_HEADER } from "../core/constants.ts";
import { COMMIT, commitTiming, raceCommit } from "./commit.ts";
import { describeFailure } from "./describe_failure.ts";
import { errorBody, errorResponse, type RelayFailure } from "./error_response.ts";

export interface RelayedAnswer {
  answer: Promise<{ json: string; headers: Record<string, string> }>;
  abort: AbortController;
  keepAliveMs: number;
  /** Upstream keys to scrub from error messages. */
  secrets: readonly string[];
  attempts: () => number;
  /** The error body of the caller's protocol (default: OpenAI's). */
  errorBody?: (failure: RelayFailure) => unknown;
}

const JSON_TYPE = "application/json; charset=utf-8";
/** JSON allows leading whitespace: what a waiting caller gets, one byte at a time. */
const PROBE = new Uint8Array([0x20]);

/**
 * The answer with its own status if it is ready (or failed) within the commit time; otherwise a
 * 200 whose body is spaces, one every `probeMs`, then the answer or an OpenAI error object.
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
      [ATTEMPTS_HEADER]: String(call.attempts()),
    }, call.errorBody);
  }
  const headers = {
    "content-type": JSON_TYPE,
    "cache-control": "no-cache, no-transform",
    // A compressor would hold the spaces back (JSON is compressed by default, by workerd
    // locally and by Cloudflare's edge); a response that names its encoding is left alone.
    "content-encoding": "identity",
    [ATTEMPTS_HEADER]: String(call.attempts()),
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
          end(
            controller,
            JSON.stringify((call.errorBody ?? errorBody)(describeFailure(error, call.secrets))),
          ),
      );
    },
    cancel(reason) {
      closed = true;
      clearInterval(probe);
      call.abort.abort(reason ?? new Error("the caller closed the response"));
    },
  });
}
