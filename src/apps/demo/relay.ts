// The relay with the demo model as its upstream: what `npm start` serves with no upstream
// configured. Built on createRelay's own options (a `fetch` served in the same runtime, forwarded
// headers, the model list); the library knows nothing of the demo.

import { Hono } from "hono";
import { cors } from "hono/cors";
import { requireKey } from "../../relay/auth.ts";
import { createRelay } from "../../relay/app.ts";
import { errorResponse, notFound } from "../../relay/error_response.ts";
import type { RelayFetch, RelayOptions } from "../../relay/options.ts";
import { readLimited } from "../../relay/request_body.ts";
import { callerDrop } from "./caller_drop.ts";
import {
  createDemoUpstream,
  DEMO_ATTEMPT_HEADER,
  DEMO_FAULT_HEADER,
  type DemoUpstreamOptions,
} from "./upstream.ts";

/**
 * The base URL the demo relay's upstream has: requests under it are served in the same runtime, never
 * over a network.
 *
 * @example
 * ```ts
 * createRelay({ upstreams: [{ baseURL: DEMO_BASE_URL }], fetch: demoFetch(createDemoUpstream()) });
 * ```
 */
export const DEMO_BASE_URL = "https://demo.stopstream.invalid/v1";

/**
 * A relay `fetch` that answers requests under {@linkcode DEMO_BASE_URL} with `demo`, numbering
 * them by the relay's attempt (so `attempt1=status:503` fails only the first), and sends any
 * other to `globalThis.fetch`.
 *
 * @example
 * ```ts
 * const fetch = demoFetch(createDemoUpstream({ wordDelayMs: 10 }));
 * ```
 */
export function demoFetch(demo: (request: Request) => Promise<Response>): RelayFetch {
  return (input, init, call) => {
    const request = new Request(input, init);
    if (!request.url.startsWith(`${DEMO_BASE_URL}/`)) return globalThis.fetch(request);
    const headers = new Headers(request.headers);
    headers.set(DEMO_ATTEMPT_HEADER, String(call?.attempt ?? 1));
    const signal = request.signal;
    if (signal.aborted) return Promise.reject(signal.reason);
    const pending = demo(new Request(request, { headers }));
    // A real fetch rejects at once on abort, even while waiting for headers; so must this one.
    return new Promise((resolve, reject) => {
      const onAbort = (): void => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      pending.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  };
}

/**
 * The relay on the demo model: `createRelay` with the demo as its one upstream, plus the demo
 * itself at `POST /demo/v1/chat/completions`, `/demo/v1/messages` and `/demo/v1/responses` and
 * its `caller-drop-after` fault, both behind the relay's keys. `options` may set any relay option but `upstreams` and `fetch`.
 *
 * @example
 * ```ts
 * app.route("/", createDemoRelay({ keys: ["my-relay-key"] }));
 * ```
 */
export function createDemoRelay(
  options: Omit<RelayOptions, "upstreams" | "fetch"> = {},
  demoOptions: DemoUpstreamOptions = {},
): Hono {
  const demo = createDemoUpstream(demoOptions);
  const relay = createRelay({
    // Short enough that the playground shows a demo stall retried within a couple of seconds.
    retry: { initialDelayMs: 200, maxDelayMs: 2_000 },
    ...options,
    // Each limit the options (or the bindings) leave unset keeps the demo's.
    timeouts: { headersMs: 10_000, firstEventMs: 1_500, idleMs: 2_000, ...options.timeouts },
    upstreams: [{ baseURL: DEMO_BASE_URL }],
    fetch: demoFetch(demo),
    forwardHeaders: [...(options.forwardHeaders ?? []), DEMO_FAULT_HEADER],
    models: options.models ?? ["demo"],
  });
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const app = new Hono();
  if (options.cors !== undefined && options.cors !== false) {
    const origin = options.cors === true ? "*" : options.cors.origin;
    app.use("/demo/*", cors({ origin, allowMethods: ["POST", "OPTIONS"], maxAge: 600 }));
  }
  for (const path of ["/v1/chat/completions", "/v1/messages", "/v1/responses"]) {
    app.use(path, callerDrop());
  }
  // The demo is behind the same door: with keys configured, it is not a free public endpoint.
  app.use("/demo/*", requireKey(options.keys ?? []));
  app.all("/demo/v1/*", async (c) => {
    // The same body limit as the chat route: this route is as public as the relay.
    if (c.req.method !== "POST") return demo(c.req.raw);
    const text = await readLimited(c.req.raw, maxBodyBytes);
    if (typeof text !== "string") return errorResponse(text);
    return demo(new Request(c.req.raw, { body: text }));
  });
  app.route("/", relay);
  app.notFound((c) => notFound(c.req.method, c.req.path));
  return app;
}
