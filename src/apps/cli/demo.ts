/**
 * `--demo`: the demo model in-process on a loopback port: no account, no network, a real socket.
 * @module
 */

import { createDemoUpstream } from "../demo/upstream.ts";
import { type LoopbackServer, serveLoopback } from "./serve.ts";

/**
 * Requests are numbered as attempts, so a fault like `attempt1=status:503` hits the first attempt
 * only and the retry succeeds.
 */
export async function startDemo(): Promise<LoopbackServer> {
  const demo = createDemoUpstream();
  let attempts = 0;
  return await serveLoopback((request) => {
    const headers = new Headers(request.headers);
    headers.set("x-demo-attempt", String(++attempts));
    return demo(new Request(request, { headers }));
  });
}
