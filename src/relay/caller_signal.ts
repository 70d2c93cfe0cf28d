/**
 * Held by `callerSignal` only weakly: workerd may keep the signal of a dropped request without
 * ever firing it, and a strong link would keep the whole call alive with it. A call that can
 * still run holds the controller itself (through its response or pending request).
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
