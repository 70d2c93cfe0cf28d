/**
 * The relay as `npm start` runs it, in front of a real loopback upstream that holds its response
 * headers: a caller gone before the relay wrote its response headers cancels the upstream call,
 * plain or resumable (a resumable caller gone then never learned the stream id: nobody else could
 * cancel it). workerd tells neither the Worker nor the Durable Object that a caller left until a
 * write to it fails: a resumable stream learns it when its reader's write fails (a keep-alive,
 * here every 500 ms), then stops after `RESUME_UNREAD_MS` (here 1 s) with no reader.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { type StartedRelay, startRelay } from "../support/npm_start.ts";

let upstream: NodeServer;
let relay: StartedRelay;
/** The relay commits its status within 1 s: the caller leaves well before. */
const LEAVE_AFTER_MS = 300;
/**
 * Plain: the keep-alive written 400 ms after the commit fails. Resumable: a keep-alive of its
 * reader fails (`KEEPALIVE_MS`), then `RESUME_UNREAD_MS` pass.
 */
const NOTICED_WITHIN_MS = 5_000;

beforeAll(async () => {
  // Holds the headers until the relay goes away.
  upstream = await startNodeServer((request) =>
    new Promise<Response>((_, reject) => {
      request.signal.addEventListener("abort", () => reject(new Error("relay went away")));
    })
  );
  relay = await startRelay(60_000, {
    UPSTREAM_BASE_URL: `${upstream.url}/v1`,
    UPSTREAM_MODEL: "held",
    KEEPALIVE_MS: "500",
    RESUME_UNREAD_MS: "1000",
  });
}, 90_000);

afterAll(async () => {
  await relay?.stop();
  await upstream?.close();
});

describe.skipIf(process.platform === "win32")("npm start: a caller gone before the headers", () => {
  it.each([["plain", {}], ["resumable", { "x-stopstream-resumable": "true" }]])(
    "%s: the upstream call is cancelled",
    async (_kind, headers) => {
      const before = upstream.requests().length;
      const caller = new AbortController();
      const response = fetch(`${relay.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({
          model: "held",
          stream: true,
          messages: [{ role: "user", content: "Hi" }],
        }),
        signal: caller.signal,
      });
      const served = await upstream.request(before + 1);
      await new Promise((resolve) => setTimeout(resolve, LEAVE_AFTER_MS)); // the scenario
      caller.abort();
      await expect(response).rejects.toThrow();
      const left = Date.now();
      const closed = await Promise.race([
        served.closed,
        new Promise((resolve) => setTimeout(() => resolve("still open"), NOTICED_WITHIN_MS)),
      ]);
      expect(closed, relay.output()).toBe("aborted");
      expect(Date.now() - left).toBeLessThan(NOTICED_WITHIN_MS);
      expect(upstream.requests().length).toBe(before + 1);
    },
  );
});
