// The pass-through control Worker: the yardstick the relay is measured against (issue #13). It
// forwards `POST /v1/chat/completions` to `${UPSTREAM_BASE_URL}/chat/completions` with the
// caller's body and signal and returns the upstream body untouched — no parsing, no
// re-serialising — so its cost is the local runtime's own cost of moving the same bytes.
// `GET /healthz` answers like the relay's. Run by Miniflare beside the relay (relay_host.mjs).
//
// With the binding `READ_IN_JS` set (the load test's `--runner control-js`), it reads the upstream
// body in JS and enqueues each chunk, untouched, into a stream of its own: what any relay that
// looks at the stream pays before it does anything with it (bench/notes.md).

export default {
  async fetch(request, env) {
    const { pathname } = new URL(request.url);
    if (pathname === "/healthz") return Response.json({ status: "ok" });
    if (request.method !== "POST" || pathname !== "/v1/chat/completions") {
      return new Response("not found", { status: 404 });
    }
    const upstream = await fetch(`${env.UPSTREAM_BASE_URL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: request.body,
      signal: request.signal,
    });
    const body = env.READ_IN_JS ? readInJs(upstream.body) : upstream.body;
    return new Response(body, {
      status: upstream.status,
      headers: { "content-type": upstream.headers.get("content-type") ?? "text/event-stream" },
    });
  },
};

/** `body` read chunk by chunk in JS and enqueued as it came, one chunk per read. */
function readInJs(body) {
  const reader = body.getReader();
  return new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}
