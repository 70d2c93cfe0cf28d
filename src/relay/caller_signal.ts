/**
 * Held only weakly: workerd may keep a dropped request's signal without firing it, and a strong
 * link would keep the call alive. A call that can still run holds the controller itself.
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
