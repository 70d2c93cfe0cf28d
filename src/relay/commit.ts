/**
 * When the relay commits a response (sends its status line), and how it then notices a caller
 * that went away.
 *
 * A Worker learns that its caller disconnected only when a write to the caller fails (the
 * `enable_request_signal` flag then fires `request.signal`), and it takes the second write
 * after the disconnect to fail. A response that writes nothing while it waits for the upstream
 * — a non-streaming answer, a stream before its first token — would keep the upstream request
 * running for a caller long gone (60 s observed, and a timeout even started a fresh upstream
 * request). So the relay holds the status back only briefly, then commits and writes harmless
 * bytes — an SSE comment, or a space before a JSON body (JSON allows leading whitespace;
 * OpenRouter does the same for its non-streaming answers) — until the answer begins.
 *
 * The cost: a failure that comes after the commit cannot change the status any more. It ends
 * an SSE stream with an error event and no `[DONE]`, and it is the JSON body of a non-streaming
 * answer, `{"error": {…}}` with status 200 (as OpenRouter documents for errors after it has
 * started processing). A failure within `COMMIT_MS` — an upstream 4xx, usually — keeps its
 * status.
 *
 * @module
 */

/** How long the status is held back at most (or `keepAliveMs`, if shorter). */
const COMMIT_MS = 1_000;
/**
 * How often a waiting caller is written to (or `keepAliveMs`, if shorter). Two writes after
 * a disconnect make it noticed: within `COMMIT_MS + PROBE_MS` of the request, or `2 × PROBE_MS`
 * of the disconnect once committed — under 2 s either way.
 */
const PROBE_MS = 400;

/**
 * A relay response's timing, from its `keepAliveMs`.
 *
 * @example
 * ```ts
 * const { commitMs, probeMs } = commitTiming(15_000); // 1000, 400
 * ```
 */
export function commitTiming(keepAliveMs: number): { commitMs: number; probeMs: number } {
  return { commitMs: Math.min(keepAliveMs, COMMIT_MS), probeMs: Math.min(keepAliveMs, PROBE_MS) };
}

/**
 * What {@linkcode raceCommit} resolves with when the commit time came first.
 *
 * @example
 * ```ts
 * if (step === COMMIT) return committedResponse();
 * ```
 */
export const COMMIT: unique symbol = Symbol("commit");

/**
 * `pending`'s outcome, or {@linkcode COMMIT} if it takes longer than `ms`. The timer is cleared
 * either way, and a later rejection of `pending` is not left unhandled (whoever committed reads
 * it afterwards).
 *
 * @example
 * ```ts
 * const first = await raceCommit(chat.result, commitMs);
 * ```
 */
export async function raceCommit<T>(pending: Promise<T>, ms: number): Promise<T | typeof COMMIT> {
  pending.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof COMMIT>((resolve) => {
    timer = setTimeout(resolve, ms, COMMIT);
  });
  try {
    return await Promise.race([pending, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
