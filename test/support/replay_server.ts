/**
 * A loopback `node:http` server that replays recorded SSE bodies piece by piece: each piece is
 * written on its own (no-delay socket, a macrotask between writes), so the client's reads see
 * the cuts the test chose — inside a UTF-8 character, between the CR and LF of a line end.
 *
 * @module
 */

import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the replay server received. */
export interface ReplayedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** A running replay server. */
export interface ReplayServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Requests received so far, in order. */
  requests: ReplayedRequest[];
  close(): Promise<void>;
}

/**
 * Serves `respond(n)` (the pieces of the n-th response, 1-based) as `text/event-stream`.
 *
 * @example
 * ```ts
 * const server = await startReplayServer(() => [bytes.subarray(0, 9), bytes.subarray(9)]);
 * ```
 */
export async function startReplayServer(
  respond: (n: number, request: ReplayedRequest) => Uint8Array[],
): Promise<ReplayServer> {
  const requests: ReplayedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const request = {
        path: req.url ?? "/",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(request);
      const pieces = respond(requests.length, request);
      res.socket?.setNoDelay(true);
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      let next = 0;
      const write = (): void => {
        if (res.destroyed) return;
        if (next === pieces.length) return void res.end();
        res.write(pieces[next++], () => setImmediate(write));
      };
      write();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
