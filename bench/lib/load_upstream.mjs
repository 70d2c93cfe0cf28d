// The demo upstream (src/apps/demo) served on a loopback socket for the relay's load test, so that what
// the relay does to its upstream connections can be seen: when each stream opened and closed,
// whether it was sent in full or cut short, how many were open at once. Streams are named by the
// caller's prompt (`messages[0].content`), which the relay passes through unchanged.
//
// `lib` comes from the caller (src/ under vitest, the built dist/ under the bench):
// `{ createDemoUpstream, toWebRequest, writeWebResponse }` (src/apps/demo/upstream.ts, src/apps/cli/serve.ts).

import { createServer } from "node:http";

/**
 * Starts the upstream on 127.0.0.1:0. Every stream answers `words` paced deltas, one per
 * `wordDelayMs` (the `x-demo-fault` the relay would not forward is set here).
 * Resolves with `{ baseURL, streams, expected(prompt), maxOpen(), resetMaxOpen(), open(),
 * closeIdle(), close() }`; `streams` maps a prompt to `{ openedNs, closedNs, completed }`
 * (`process.hrtime.bigint()`, the driver's clock).
 */
export async function startLoadUpstream(lib, { words = 60, wordDelayMs = 25 } = {}) {
  const demo = lib.createDemoUpstream({ wordDelayMs });
  const fault = `words=${words}`;
  const streams = new Map();
  let open = 0;
  let maxOpen = 0;
  const server = createServer((req, res) => {
    const aborter = new AbortController();
    const record = { openedNs: process.hrtime.bigint(), closedNs: null, completed: false };
    open++;
    maxOpen = Math.max(maxOpen, open);
    res.once("close", () => {
      open--;
      record.closedNs = process.hrtime.bigint();
      record.completed = res.writableFinished;
      if (!res.writableFinished) aborter.abort(new Error("the relay closed the connection"));
    });
    void (async () => {
      const request = await lib.toWebRequest(req, "http://upstream.invalid", aborter.signal);
      const body = await request.clone().json().catch(() => null);
      streams.set(String(body?.messages?.[0]?.content), record);
      const headers = new Headers(request.headers);
      headers.set("x-demo-fault", fault);
      try {
        await lib.writeWebResponse(await demo(new Request(request, { headers })), res);
      } catch {
        res.destroy();
      }
    })();
  });
  const sockets = new Set();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const answers = new Map();
  return {
    baseURL: `http://127.0.0.1:${server.address().port}/v1`,
    streams,
    open: () => open,
    maxOpen: () => maxOpen,
    resetMaxOpen: () => void (maxOpen = open),
    /** The demo's complete answer to `prompt` (its non-streaming reply, same words). */
    async expected(prompt) {
      if (!answers.has(prompt)) {
        const response = await demo(
          new Request("http://upstream.invalid/v1/chat/completions", {
            method: "POST",
            headers: { "content-type": "application/json", "x-demo-fault": fault },
            body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: prompt }] }),
          }),
        );
        answers.set(prompt, (await response.json()).choices[0].message.content);
      }
      return answers.get(prompt);
    },
    /** Ends idle keep-alive connections (the relay's pool), as a server's idle timeout would. */
    closeIdle: () => server.closeIdleConnections(),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
