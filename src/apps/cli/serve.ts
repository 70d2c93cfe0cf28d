// A minimal `node:http` adapter for a fetch-style handler on a loopback port, so `--demo` runs
// over a real socket (and a real disconnect) in-process.

import { Buffer } from "node:buffer";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface LoopbackServer {
  /** No trailing slash. */
  url: string;
  /** Destroys open connections; does not wait for them. */
  close(): void;
}

/** When the client goes away mid-body, the request's `signal` aborts and the body is cancelled. */
export async function serveLoopback(
  handler: (request: Request) => Promise<Response>,
): Promise<LoopbackServer> {
  const server = createServer(async (req, res) => {
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

/** Tracks open sockets, so a close can destroy them instead of waiting for keep-alive ones. */
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

export function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  return headers;
}

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

/** Rejects when the body errors; a client gone first gets it cancelled, without waiting. */
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
