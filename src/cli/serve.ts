/**
 * A minimal `node:http` adapter that serves a fetch-style handler on a free loopback port, so
 * `--demo` talks to the demo model over a real socket (and a real disconnect) in-process.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A running loopback server.
 *
 * @example
 * ```ts
 * const server: LoopbackServer = await serveLoopback(handler);
 * console.log(server.url); // http://127.0.0.1:54321
 * server.close();
 * ```
 */
export interface LoopbackServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  /** Stops listening and destroys open connections; does not wait for them. */
  close(): void;
}

/**
 * Serve `handler` on 127.0.0.1 with a port chosen by the OS.
 *
 * The response body is streamed chunk by chunk. When the client goes away mid-body the
 * request's `signal` aborts and the body is cancelled, so the handler stops producing.
 *
 * @example
 * ```ts
 * const server = await serveLoopback(createDemoUpstream());
 * const baseURL = `${server.url}/v1`;
 * ```
 */
export async function serveLoopback(
  handler: (request: Request) => Promise<Response>,
): Promise<LoopbackServer> {
  const server = createServer((req, res) => {
    void respond(handler, req, res, origin);
  });
  const { origin, sockets } = await listenLoopback(server);
  return {
    url: origin,
    close: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

/**
 * Starts `server` on 127.0.0.1 with a port chosen by the OS, tracking its open sockets (so a
 * close can destroy them instead of waiting for keep-alive connections to end).
 *
 * @example
 * ```ts
 * const { origin, sockets } = await listenLoopback(createServer(listener));
 * ```
 */
export async function listenLoopback(
  server: Server,
): Promise<{ origin: string; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, port, sockets };
}

async function respond(
  handler: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
  origin: string,
): Promise<void> {
  const aborter = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) aborter.abort(new Error("client closed the connection"));
  });
  try {
    const response = await handler(await toWebRequest(req, origin, aborter.signal));
    await writeWebResponse(response, res);
  } catch {
    // A failed handler or a body that errored: cut the socket so the client sees a dropped
    // connection, never a clean end of a truncated stream.
    res.destroy();
  }
}

/**
 * The headers of a `node:http` request as a `Headers` (repeated names appended, not merged).
 *
 * @example
 * ```ts
 * const headers = webHeaders(req);
 * headers.get("content-type"); // "application/json"
 * ```
 */
export function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  return headers;
}

/**
 * Reads a `node:http` request (its whole body) into a fetch `Request` on `origin`.
 *
 * @example
 * ```ts
 * const request = await toWebRequest(req, "http://127.0.0.1:8787", aborter.signal);
 * request.url; // "http://127.0.0.1:8787/v1/chat/completions"
 * ```
 */
export async function toWebRequest(
  req: IncomingMessage,
  origin: string,
  signal: AbortSignal,
  headers: Headers = webHeaders(req),
): Promise<Request> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  const method = req.method ?? "GET";
  const init: RequestInit = { method, headers, signal };
  if (method !== "GET" && method !== "HEAD") init.body = Buffer.concat(chunks);
  return new Request(origin + (req.url ?? "/"), init);
}

/**
 * Writes a fetch `Response` to a `node:http` response, streaming the body chunk by chunk
 * (waiting for `drain`). When the client goes away first, the body is cancelled without
 * waiting (the socket is gone, and a cancel may wait on the producer). Rejects when the body
 * errors; the caller decides how to end the socket.
 *
 * @example
 * ```ts
 * await writeWebResponse(new Response("hi"), res);
 * ```
 */
export async function writeWebResponse(response: Response, res: ServerResponse): Promise<void> {
  if (res.destroyed) {
    response.body?.cancel().catch(() => {});
    return;
  }
  const outHeaders: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => (outHeaders[name] = value));
  // `forEach` yields each set-cookie on its own: keep them all, not the last one.
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) outHeaders["set-cookie"] = cookies;
  res.writeHead(response.status, outHeaders);
  res.flushHeaders();
  if (response.body === null) return void res.end();
  const reader = response.body.getReader();
  res.on("close", () => {
    if (res.writableFinished) return;
    reader.cancel(new Error("client closed the connection")).catch(() => {});
  });
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
}
