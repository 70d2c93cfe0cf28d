/**
 * A loopback server that writes content events as fast as its socket takes them (up to 1 GiB),
 * to tell a reader that holds it back from one that reads on: `outcome` is `"held"` once its
 * socket has taken nothing for half a second, `"read on: 64 MiB written"` once it wrote that.
 *
 * @module
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** The running server: its base URL, what it wrote, the outcome, and its stop. */
export interface Firehose {
  baseURL: string;
  written(): number;
  outcome: Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts a firehose of `event` (one SSE event's text, sent 128 at a time).
 *
 * @example
 * ```ts
 * const server = await startFirehose(sse(chunk({ content: "x".repeat(100) })));
 * expect(await server.outcome).toBe("held");
 * ```
 */
export async function startFirehose(event: string): Promise<Firehose> {
  let written = 0;
  let settle!: (outcome: string) => void;
  const outcome = new Promise<string>((resolve) => (settle = resolve));
  const piece = event.repeat(128);
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    const pump = (): void => {
      while (!res.destroyed && written < 2 ** 30) {
        written += piece.length;
        if (written >= 64 * 2 ** 20) settle("read on: 64 MiB written");
        if (!res.write(piece)) {
          const held = setTimeout(() => settle("held"), 500);
          return void res.once("drain", () => {
            clearTimeout(held);
            pump();
          });
        }
      }
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    written: () => written,
    outcome,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
