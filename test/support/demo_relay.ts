/**
 * The relay on a loopback socket, its one upstream the demo model on another (openai-chat, so
 * every answer to an Anthropic or Responses caller is translated), for the SDK tests.
 *
 * @module
 */

import { createDemoUpstream, DEMO_ATTEMPT_HEADER } from "../../src/apps/demo/upstream.ts";
import { createRelay } from "../../src/relay/app.ts";
import { type NodeServer, startNodeServer } from "./node_server.ts";

/**
 * The two servers; callers send the key `relay-key` and may send `x-demo-fault`.
 *
 * @example
 * ```ts
 * const { upstream, relay } = await startDemoRelay({ wordDelayMs: 2 });
 * await relay.close();
 * await upstream.close();
 * ```
 */
export interface DemoRelay {
  upstream: NodeServer;
  relay: NodeServer;
}

/** Starts the demo model, then the relay in front of it. */
export async function startDemoRelay(
  options: { wordDelayMs: number; keepAliveMs?: number },
): Promise<DemoRelay> {
  const upstream = await startNodeServer(createDemoUpstream({ wordDelayMs: options.wordDelayMs }));
  const app = createRelay({
    upstreams: [{ baseURL: `${upstream.url}/v1` }],
    keys: ["relay-key"],
    forwardHeaders: ["x-demo-fault"],
    retry: { initialDelayMs: 1, maxDelayMs: 5 },
    ...(options.keepAliveMs !== undefined ? { keepAliveMs: options.keepAliveMs } : {}),
    // The demo numbers attempts by a header: the relay's attempt, so attempt1= fails the first.
    fetch: (input, init, call) => {
      const request = new Request(input, init);
      request.headers.set(DEMO_ATTEMPT_HEADER, String(call?.attempt ?? 1));
      return fetch(request);
    },
  });
  const relay = await startNodeServer((request) => Promise.resolve(app.fetch(request)));
  return { upstream, relay };
}
