/**
 * The abort of one relayed call, fired by its caller's disconnect without the caller's signal
 * holding the call.
 *
 * @module
 */

/**
 * An `AbortController` that `callerSignal` aborts (with its reason), held by the signal only
 * weakly: whoever runs the call must keep the controller.
 *
 * Why weakly: workerd may drop a request whose caller went away without firing its
 * `request.signal` (nor cancelling the response body), and keeps that signal alive. Linked
 * strongly (`AbortSignal.any`, or a listener that closes over the controller), the signal held
 * the whole call — the client mid-answer and all it had read — for good: about 14 calls per 300
 * streams in the load test (bench/notes.md). A call that can still run is held by its response
 * (or its pending request), so the weak link never loses a live one.
 *
 * @example
 * ```ts
 * const abort = abortOnDisconnect(c.req.raw.signal);
 * streamChat({ baseURL, body, signal: abort.signal });
 * ```
 */
export function abortOnDisconnect(callerSignal: AbortSignal): AbortController {
  const abort = new AbortController();
  if (callerSignal.aborted) {
    abort.abort(callerSignal.reason);
    return abort;
  }
  const call = new WeakRef(abort);
  callerSignal.addEventListener("abort", () => call.deref()?.abort(callerSignal.reason), {
    once: true,
  });
  return abort;
}
