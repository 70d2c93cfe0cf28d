// The relay with the demo model as its upstream, built on createRelay's own options: the library
// knows nothing of the demo.

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
 * The demo upstream's base URL: requests under it are served in the same runtime.
 *
 * @example
 * ```ts
 * createRelay({ upstreams: [{ baseURL: DEMO_BASE_URL }], fetch: demoFetch(createDemoUpstream()) });
 * ```
 */
export const DEMO_BASE_URL = "https://demo.stopstream.invalid/v1";

/**
 * A relay `fetch` that answers requests under {@linkcode DEMO_BASE_URL} with `demo`, numbered by
 * attempt (`attempt1=status:503` fails only the first), and sends others to `globalThis.fetch`.
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
 * `createRelay` with the demo as its one upstream, plus the demo itself under `POST /demo/v1/…`
 * and its `caller-drop-after` fault, behind the relay's keys; `upstreams` and `fetch` are its own.
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
    if (c.req.method !== "POST") return demo(c.req.raw);
    const text = await readLimited(c.req.raw, maxBodyBytes);
    if (typeof text !== "string") return errorResponse(text);
    return demo(new Request(c.req.raw, { body: text }));
  });
  app.route("/", relay);
  app.notFound((c) => notFound(c.req.method, c.req.path));
  return app;
}
