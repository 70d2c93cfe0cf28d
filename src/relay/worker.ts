/**
 * The relay Worker: reads its configuration from bindings, serves the playground at `GET /`
 * and the browser build of stopstream it uses at `GET /stopstream.js`, and mounts
 * {@linkcode createRelay} for everything else.
 *
 * @module
 */

import { type ExecutionContext, Hono } from "hono";
import { createRelay, notFound } from "./app.ts";
import { type RelayEnv, relayOptionsFromEnv } from "./env.ts";
import type { RelayOptions } from "./options.ts";
import { errorResponse } from "./errors.ts";
import browserClient from "./generated/stopstream.browser.js.txt";
import { PLAYGROUND_HTML } from "./playground.ts";

// One app per bindings object: Workers reuse `env` across the requests of an isolate.
const apps = new WeakMap<object, Hono>();

/**
 * Build the Worker's app for `env`: playground routes plus the relay, or, when the bindings
 * are invalid, an app that answers every request with a 500 naming the bad binding.
 *
 * @example
 * ```ts
 * const app = createWorkerApp({ RELAY_KEYS: "k1" });
 * const response = await app.request("/healthz");
 * ```
 */
export function createWorkerApp(env: RelayEnv): Hono {
  const app = new Hono();
  app.get("/", (c) => c.html(PLAYGROUND_HTML));
  app.get("/stopstream.js", (c) =>
    c.body(browserClient, 200, {
      "content-type": "text/javascript; charset=utf-8",
      "cache-control": "no-cache",
    }));
  const relay = buildRelay(env);
  if (typeof relay === "string") {
    app.all("*", () =>
      errorResponse({
        status: 500,
        message: relay,
        type: "server_error",
        code: "relay_misconfigured",
      }));
    return app;
  }
  app.route("/", relay);
  app.notFound((c) => notFound(c.req.method, c.req.path));
  return app;
}

/** The relay for `env`, or why it cannot be built: naming bindings, never their values. */
function buildRelay(env: RelayEnv): Hono | string {
  let options: RelayOptions;
  try {
    options = relayOptionsFromEnv(env);
  } catch (error) {
    return `The relay is misconfigured: ${(error as Error).message}`;
  }
  try {
    return createRelay({ ...options, cors: true });
  } catch {
    // Not reached while relayOptionsFromEnv checks all that createRelay does; if it were, its
    // message might quote an option's value, so none is passed on.
    return "The relay is misconfigured: createRelay refused the options built from its bindings";
  }
}

/**
 * The Worker entry (`main` in `wrangler.toml`).
 *
 * @example
 * ```ts
 * const response = await worker.fetch(new Request("http://relay/healthz"), {}, ctx);
 * ```
 */
const worker: {
  fetch(request: Request, env: RelayEnv, ctx: ExecutionContext): Response | Promise<Response>;
} = {
  fetch(request, env, ctx) {
    let app = apps.get(env);
    if (app === undefined) apps.set(env, app = createWorkerApp(env));
    return app.fetch(request, env, ctx);
  },
};

export default worker;
