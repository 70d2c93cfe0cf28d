// The relay isolate's JS heap after a full collection, over a direct DevTools connection to the
// relay's workerd (its inspector; see relay_host.mjs). workerd does not answer
// HeapProfiler.collectGarbage; a heap snapshot runs a full GC first, so: snapshot (chunks
// discarded), then Runtime.getHeapUsage. Only HeapProfiler and Runtime are used — no domain is
// enabled, so no events flow while the load runs.

async function socket(url) {
  const WS = globalThis.WebSocket ?? (await import("ws")).default;
  const ws = new WS(url);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", () => reject(new Error(`inspector ${url}: no connection`)), {
      once: true,
    });
  });
  return ws;
}

/** JS heap in use after a full GC, MiB (null without an inspector URL). */
export async function heapAfterGCMiB(url) {
  if (!url) return null;
  const ws = await socket(url);
  let seq = 0;
  const waiting = new Map();
  ws.addEventListener("message", (m) => {
    const msg = JSON.parse(String(m.data));
    if (msg.id && waiting.has(msg.id)) {
      waiting.get(msg.id)(msg);
      waiting.delete(msg.id);
    }
  });
  const call = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++seq;
      waiting.set(id, (msg) => msg.error ? reject(new Error(msg.error.message)) : resolve(msg));
      ws.send(JSON.stringify({ id, method, params }));
    });
  try {
    await call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
    const { usedSize } = (await call("Runtime.getHeapUsage")).result;
    return Math.round(usedSize / 1048576 * 100) / 100;
  } finally {
    ws.close();
  }
}
