/**
 * A real loopback `node:http` server for a fetch-style handler, for tests where the socket
 * matters (connection cut mid-body, client disconnect seen by the server).
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  listenLoopback,
  toWebRequest,
  webHeaders,
  writeWebResponse,
} from "../../src/apps/cli/serve.ts";

/**
 * One request the server received, and how its response ended.
 *
 * @example
 * ```ts
 * const served: ServedRequest = await server.request(1);
 * expect(await served.closed).toBe("aborted");
 * ```
 */
export interface ServedRequest {
  method: string;
  path: string;
  headers: Headers;
  /**
   * Settles when the response is over: `"finished"` when the whole body was written,
   * `"aborted"` when the client went away first, `"dropped"` when the handler's body errored
   * and the server cut the connection.
   */
  closed: Promise<"finished" | "aborted" | "dropped">;
}

/**
 * A running loopback server.
 *
 * @example
 * ```ts
 * const server: NodeServer = await startNodeServer(handler);
 * await fetch(`${server.url}/healthz`);
 * await server.close();
 * ```
 */
export interface NodeServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  port: number;
  /** Stops accepting and destroys open sockets. */
  close(): Promise<void>;
  /** Number of currently open sockets. */
  connections(): number;
  /** Requests received so far, in arrival order. */
  requests(): readonly ServedRequest[];
  /** Resolves with the n-th request (1-based) as soon as it has arrived. */
  request(n: number): Promise<ServedRequest>;
}

/**
 * Serve a `(Request) => Promise<Response>` handler on 127.0.0.1 with a random port.
 *
 * The response body is streamed chunk by chunk; when the client closes the socket mid-body,
 * the body reader is cancelled (not awaited) so the handler's stream sees the cancel, and the
 * request's `signal` aborts. A body that errors makes the server destroy the socket, so the
 * client sees a cut connection rather than a clean end.
 *
 * @example
 * ```ts
 * const server = await startNodeServer(createDemoUpstream({ wordDelayMs: 1 }));
 * const res = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: "{}" });
 * await server.close();
 * ```
 */
export async function startNodeServer(
  handler: (request: Request) => Promise<Response>,
): Promise<NodeServer> {
  const served: ServedRequest[] = [];
  const arrivals: Array<() => void> = [];
  const server = createServer((req, res) => {
    const record = serve(handler, req, res, origin);
    served.push(record);
    for (const wake of arrivals.splice(0)) wake();
  });
  const { origin, port, sockets } = await listenLoopback(server);
  const request = async (n: number): Promise<ServedRequest> => {
    while (served.length < n) await new Promise<void>((resolve) => arrivals.push(resolve));
    return served[n - 1] as ServedRequest;
  };
  return {
    url: origin,
    port,
    connections: () => sockets.size,
    requests: () => served,
    request,
    close: async () => {
      const closing = [...sockets].map((socket) =>
        new Promise<void>((resolve) => {
          socket.once("close", () => resolve());
          socket.destroy();
        })
      );
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
      });
      await Promise.all(closing);
    },
  };
}

function serve(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
  origin: string,
): ServedRequest {
  const headers = webHeaders(req);
  const aborter = new AbortController();
  let dropped = false;
  const closed = new Promise<"finished" | "aborted" | "dropped">((resolve) => {
    res.on("close", () => {
      if (res.writableFinished) return resolve("finished");
      if (dropped) return resolve("dropped");
      // `writeWebResponse` cancels the body reader (not awaited) on this same close.
      aborter.abort(new Error("client closed the connection"));
      resolve("aborted");
    });
  });
  const method = req.method ?? "GET";
  void (async () => {
    const request = await toWebRequest(req, origin, aborter.signal, headers);
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
      return;
    }
    try {
      await writeWebResponse(response, res);
    } catch {
      // The body errored mid-stream: cut the socket so the client cannot mistake it for an end.
      dropped = true;
      res.destroy();
    }
  })();
  return { method, path: req.url ?? "/", headers, closed };
}
