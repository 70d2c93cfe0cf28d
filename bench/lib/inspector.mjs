// A minimal DevTools-protocol client for a workerd isolate (its `--inspector-addr`): connect,
// call methods, close. No domain is enabled unless a caller enables one, so no events flow.

/** The DevTools WebSocket URL of the isolate named `core:user:<name>` at `host:port`. */
export async function isolateURL(port, name, host = "127.0.0.1") {
  const res = await fetch(`http://${host}:${port}/json/list`, {
    signal: AbortSignal.timeout(2000),
  });
  const targets = await res.json();
  const t = targets.find((t) => t.id === `core:user:${name}`) ??
    targets.find((t) => String(t.id).startsWith("core:user:"));
  if (!t) throw new Error(`no isolate on inspector port ${port}`);
  return t.webSocketDebuggerUrl ?? `ws://${host}:${port}/${t.id}`;
}

/** Connects to a DevTools WebSocket; resolves with `{ call(method, params), close() }`. */
export async function connectInspector(url) {
  const WS = globalThis.WebSocket ?? (await import("ws")).default;
  const ws = new WS(url);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", () => reject(new Error(`inspector ${url}: no connection`)), {
      once: true,
    });
  });
  let seq = 0;
  const waiting = new Map();
  ws.addEventListener("message", (m) => {
    const msg = JSON.parse(String(m.data));
    if (msg.id && waiting.has(msg.id)) {
      waiting.get(msg.id)(msg);
      waiting.delete(msg.id);
    }
  });
  return {
    call: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++seq;
        waiting.set(id, (msg) =>
          msg.error ? reject(new Error(msg.error.message)) : resolve(msg.result));
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}
