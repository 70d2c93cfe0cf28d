/**
 * A real loopback `node:http` server for a fetch-style handler, for tests where the socket
 * matters (connection cut mid-body, client disconnect seen by the server).
 *
 * @module
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

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
  const sockets = new Set<Socket>();
  const served: ServedRequest[] = [];
  const arrivals: Array<() => void> = [];
  const server = createServer((req, res) => {
    const record = serve(handler, req, res, origin);
    served.push(record);
    for (const wake of arrivals.splice(0)) wake();
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
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
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  }
  const aborter = new AbortController();
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let dropped = false;
  const closed = new Promise<"finished" | "aborted" | "dropped">((resolve) => {
    res.on("close", () => {
      if (res.writableFinished) return resolve("finished");
      if (dropped) return resolve("dropped");
      aborter.abort(new Error("client closed the connection"));
      // Not awaited: a cancel may wait on the source, and the socket is already gone.
      reader?.cancel(new Error("client closed the connection")).catch(() => {});
      resolve("aborted");
    });
  });
  const method = req.method ?? "GET";
  void (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const init: RequestInit = { method, headers, signal: aborter.signal };
    if (method !== "GET" && method !== "HEAD") init.body = Buffer.concat(chunks);
    let response: Response;
    try {
      response = await handler(new Request(origin + (req.url ?? "/"), init));
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
      return;
    }
    if (res.destroyed) {
      await response.body?.cancel().catch(() => {});
      return;
    }
    const outHeaders: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => (outHeaders[name] = value));
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) outHeaders["set-cookie"] = cookies;
    res.writeHead(response.status, outHeaders);
    res.flushHeaders();
    if (response.body === null) return void res.end();
    reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || res.destroyed) break;
        if (!res.write(value)) {
          await new Promise<void>((resolve) => {
            res.once("drain", resolve);
            res.once("close", resolve);
          });
        }
      }
      if (!res.destroyed) res.end();
    } catch {
      // The body errored mid-stream: cut the socket so the client cannot mistake it for an end.
      dropped = true;
      res.destroy();
    }
  })();
  return { method, path: req.url ?? "/", headers, closed };
}
