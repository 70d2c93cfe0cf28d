import { Hono } from "hono";
import { cors } from "hono/cors";
import { ATTEMPTS_HEADER, STREAM_ID_HEADER, UPSTREAM_HEADER } from "../core/constants.ts";
import { requireKey } from "./auth.ts";
import { CallGuards } from "./call_guards.ts";
import { chatRoute } from "./chat_route.ts";
import { anthropicErrorBody } from "./anthropic_shapes.ts";
import { countTokensRoute } from "./count_tokens.ts";
import { INBOUND } from "./inbound.ts";
import { errorResponse, methodNotAllowed, noStreams, notFound } from "./error_response.ts";
import { modelsRoute } from "./models_route.ts";
import type { RelayOptions } from "./options.ts";
import { resolveRelayOptions } from "./option_rules.ts";
import { streamRoutes, type StreamsConfig } from "./streams/routes.ts";

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
  app.use("/v1/*", requireKey(config.keys));
  app.get("/v1/models", modelsRoute(config));
  // The cooldowns and limits every route of this relay shares: they live as long as it.
  const guards = new CallGuards(config);
  const route = (path: string, inbound: keyof typeof INBOUND): void => {
    app.post(path, chatRoute(config, streams, INBOUND[inbound], guards));
    app.all(path, (c) => methodNotAllowed(c.req.method, "POST", INBOUND[inbound].errorBody));
  };
  route("/v1/chat/completions", "openai-chat");
  route("/v1/messages", "anthropic-messages");
  route("/v1/responses", "openai-responses");
  app.post("/v1/messages/count_tokens", countTokensRoute(config));
  app.all(
    "/v1/messages/count_tokens",
    (c) => methodNotAllowed(c.req.method, "POST", anthropicErrorBody),
  );
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
  app.onError(() =>
    errorResponse({
      status: 500,
      message: "The relay failed unexpectedly.",
      type: "server_error",
      code: null,
    })
  );
  return app;
}
