import { type Handler, Hono } from "hono";
import { cors } from "hono/cors";
import { ATTEMPTS_HEADER, STREAM_ID_HEADER, UPSTREAM_HEADER } from "../core/constants.ts";
import { requireKey } from "./auth.ts";
import { CallGuards } from "./call_guards.ts";
import { chatRoute } from "./chat_route.ts";
import { countTokensRoute } from "./count_tokens.ts";
import { INBOUND, type Inbound } from "./inbound.ts";
import {
  errorResponse,
  methodNotAllowed,
  noStreams,
  notFound,
  UNEXPECTED,
} from "./error_response.ts";
import { modelsRoute } from "./models_route.ts";
import type { RelayOptions } from "./options.ts";
import { resolveRelayOptions } from "./option_rules.ts";
import { streamRoutes, type StreamsConfig } from "./streams/routes.ts";

/** The routes of the protocols a caller may speak, each in its own error shape. */
const CHAT_ROUTES = [
  ["/v1/chat/completions", "openai-chat"],
  ["/v1/messages", "anthropic-messages"],
  ["/v1/responses", "openai-responses"],
] as const;

/**
 * Create the relay: `POST /v1/chat/completions`, `POST /v1/messages` (and its
 * `/count_tokens`), `POST /v1/responses`, `GET /v1/models` and `GET /healthz` (with `streams`,
 * also `GET /v1/streams/{id}` and `POST /v1/streams/{id}/cancel`).
 *
 * @example
 * ```ts
 * const upstreams = [{ baseURL: "https://api.openai.com/v1", apiKey: "sk-…" }];
 * app.route("/", createRelay({ upstreams, keys: ["my-relay-key"] }));
 * ```
 */
export function createRelay(options: RelayOptions): Hono {
  const config = resolveRelayOptions(options);
  const streams: StreamsConfig | undefined = config.streams && {
    namespace: config.streams,
    ttlMs: config.resumeTtlMs,
    maxBytes: config.maxStreamBytes,
    maxReaders: config.maxStreamReaders,
    unreadMs: config.resumeUnreadMs,
    keys: config.keys,
    logCalls: config.logCalls,
  };
  const app = new Hono();

  if (config.cors !== false) {
    app.use(
      "*",
      cors({
        origin: config.cors === true ? "*" : config.cors.origin,
        allowMethods: ["GET", "POST", "OPTIONS"],
        // No allowHeaders, so the preflight's own list is allowed: SDKs add headers of their own
        // (`x-stainless-*`), and only an allowlist ever goes upstream.
        exposeHeaders: [ATTEMPTS_HEADER, UPSTREAM_HEADER, STREAM_ID_HEADER],
        maxAge: 600,
      }),
    );
  }
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  // The cooldowns and limits every route of this relay shares: they live as long as it.
  const guards = new CallGuards(config);
  // Each protocol's routes check the key themselves, so a 401 is in their protocol's shape
  // wherever the relay is mounted; they answer before the key check of the other routes below.
  const route = (path: string, inbound: Inbound, handler: Handler): void => {
    const keyed = requireKey(config.keys, inbound.errorBody);
    // Not the app's `onError`: that one cannot tell which protocol's route failed.
    app.post(path, keyed, async (c, next) => {
      try {
        return await handler(c, next);
      } catch {
        return errorResponse(UNEXPECTED, undefined, inbound.errorBody);
      }
    });
    app.all(path, keyed, (c) => methodNotAllowed(c.req.method, "POST", inbound.errorBody));
  };
  for (const [path, protocol] of CHAT_ROUTES) {
    route(path, INBOUND[protocol], chatRoute(config, streams, INBOUND[protocol], guards));
  }
  route("/v1/messages/count_tokens", INBOUND["anthropic-messages"], countTokensRoute(config));
  // The other routes answer in OpenAI's shape; a stream's route too, as long as the stream is
  // unknown (a refused key, an unknown id).
  app.use("/v1/*", requireKey(config.keys));
  app.get("/v1/models", modelsRoute(config));
  if (streams !== undefined) app.route("/", streamRoutes(streams));

  // Routes, not only `notFound`: mounted in another app (`app.route`), the relay's `notFound`
  // is not the one that answers, and a caller would get that app's plain-text 404.
  app.all("/v1/models", (c) => methodNotAllowed(c.req.method, "GET"));
  app.all("/healthz", (c) => methodNotAllowed(c.req.method, "GET"));
  app.all(
    "/v1/streams/*",
    (c) => streams === undefined ? noStreams() : notFound(c.req.method, c.req.path),
  );
  app.notFound((c) => notFound(c.req.method, c.req.path));
  app.onError(() => errorResponse(UNEXPECTED));
  return app;
}
