/**
 * A loopback TCP proxy that cuts one connection in the middle of a streamed answer: the network
 * failure a phone that changes networks sees, for clients that must cope with it by themselves.
 *
 * @module
 */

import { once } from "node:events";
import { type AddressInfo, createServer, Socket } from "node:net";

/**
 * A running proxy.
 *
 * @example
 * ```ts
 * const proxy = await startCuttingProxy(relay.url, { connection: 1, afterContent: 5 });
 * await streamChat({ baseURL: `${proxy.url}/v1`, … });
 * proxy.cut; // true once it has cut
 * ```
 */
export interface CuttingProxy {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Whether the connection was cut. */
  readonly cut: boolean;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * Forwards every connection to `target` (an `http://host:port` origin); connection number
 * `connection` (1-based) is destroyed, both ways, once the answer has carried `afterContent`
 * `"content":` deltas to the client.
 */
export async function startCuttingProxy(
  target: string,
  { connection, afterContent }: { connection: number; afterContent: number },
): Promise<CuttingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  let accepted = 0;
  let cut = false;
  const server = createServer((client) => {
    const number = ++accepted;
    const upstream = new Socket();
    upstream.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {});
    }
    client.pipe(upstream);
    let seen = "";
    upstream.on("data", (data: Buffer) => {
      client.write(data);
      if (number !== connection || cut) return;
      seen += data.toString("latin1");
      if ((seen.match(/"content":"/g) ?? []).length >= afterContent) {
        cut = true;
        client.destroy();
        upstream.destroy();
      }
    });
    upstream.on("end", () => client.end());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get cut() {
      return cut;
    },
    get connections() {
      return accepted;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
