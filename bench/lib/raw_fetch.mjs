// The hand-written reference client: one POST, and on a 503 an abortable sleep before the
// retry, the least any client can do. Its interrupt latency is the bar for everyone else.

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** POSTs the streaming request; retries a 503 twice after 500 ms, 1 s (abortable waits). */
export async function post(ctx) {
  const body = JSON.stringify({ ...ctx.body, stream: true });
  for (let attempt = 0;; attempt++) {
    const res = await ctx.fetch(ctx.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...ctx.headers },
      body,
      signal: ctx.signal,
    });
    if (res.ok) return res;
    await res.arrayBuffer();
    if (res.status !== 503 || attempt === 2) throw new Error(`HTTP ${res.status}`);
    await sleep(500 * 2 ** attempt, ctx.signal);
  }
}
