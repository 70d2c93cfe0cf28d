/**
 * `--demo`: the demo model served in-process on a free loopback port, so `stopstream chat
 * --demo` works with no account and no network, over a real socket.
 *
 * @module
 */

import { createDemoUpstream } from "../demo/upstream.ts";
import { type LoopbackServer, serveLoopback } from "./serve.ts";

/**
 * Start the demo model. Requests are numbered as attempts (`x-demo-attempt`), so per-attempt
 * faults like `attempt1=status:503` hit the first attempt only and the retry succeeds.
 *
 * @example
 * ```ts
 * const demo = await startDemo();
 * const baseURL = `${demo.url}/v1`;
 * demo.close();
 * ```
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
