import { Hono } from "hono";
import { cors } from "hono/cors";
import { createDemoUpstream, DEMO_FAULT_HEADER } from "../apps/demo/upstream.ts";
import { Call, planCall } from "../client/internal.ts";
import type { StreamChatOptions } from "../core/chat_options.ts";
import { createKeyCheck } from "./auth.ts";
import { callerDrop } from "../apps/demo/caller_drop.ts";
import { abortOnDisconnect } from "./caller_signal.ts";
import { toChatCompletion } from "./completion.ts";
import { UpstreamCooldowns } from "./cooldown.ts";
import { errorResponse, methodNotAllowed, notFound, type RelayFailure } from "./error_response.ts";
import { answerTooLarge, callOptions } from "./upstream_call.ts";
import { relayChat } from "./forward.ts";
import { jsonResponse } from "./json_response.ts";
import { collectLogprobs, type LogprobsTap } from "./logprobs.ts";
import { type RelayOptions, type ResolvedUpstream, resolveRelayOptions } from "./options.ts";
import { chunkEncoder, wantsProgress } from "./progress.ts";
import { type ChatRequestBody, parseChatRequest, readLimited } from "./request_body.ts";
import { sseResponse } from "./sse_response.ts";
import { startStream, streamRoutes, type StreamsConfig, wantsResumable } from "./streams/routes.ts";
import { STREAM_ID_HEADER } from "./streams/wire.ts";
import { canHonour } from "./translate_request.ts";
import { createUpstreamFetch, forwardedHeaders, type InProcessDemo } from "./upstream_fetch.ts";

const DEMO_MODEL = "demo";
/** Which upstream answered: its index among the configured ones (0: the primary). */
const UPSTREAM_HEADER = "x-stopstream-upstream";

/**
 * Create the relay: `POST /v1/chat/completions`, `GET /v1/models` and `GET /healthz`.
 * With no upstream configured, it answers with the built-in demo model.
 *
 * @example
 * ```ts
 * const upstreams = [{ baseURL: "https://api.openai.com/v1", apiKey: "sk-…" }];
 * app.route("/", createRelay({ upstreams, keys: ["my-relay-key"] }));
 * ```
 */
export function createRelay(options: RelayOptions = {}): Hono {
  const config = resolveRelayOptions(options);
  const demo = config.upstreams.length === 0 ? createDemoUpstream(config.demo) : undefined;
  const secrets = config.upstreams.flatMap((u) => (u.apiKey ? [u.apiKey] : []));
  const isAuthorized = createKeyCheck(config.keys);
  const streams: StreamsConfig | undefined = config.streams && {
    namespace: config.streams,
    ttlMs: config.resumeTtlMs,
    maxBytes: config.maxStreamBytes,
    maxReaders: config.maxStreamReaders,
    keys: config.keys,
  };
  // Both live as long as the app: on Workers, one per isolate.
  const cooldowns = new UpstreamCooldowns(Math.max(1, config.upstreams.length), {
    failures: config.cooldownFailures,
    cooldownMs: config.cooldownMs,
  });
  const retryBudget = config.retryBudget;
  const app = new Hono();

  if (config.cors !== false) {
    app.use(
      "*",
      cors({
        origin: config.cors === true ? "*" : config.cors.origin,
        allowMethods: ["GET", "POST", "OPTIONS"],
        // No allowHeaders, so the preflight's own list is allowed: SDKs add headers of their own
        // (`x-stainless-*`), and only an allowlist ever goes upstream.
        exposeHeaders: ["x-stopstream-attempts", UPSTREAM_HEADER, STREAM_ID_HEADER],
        maxAge: 600,
      }),
    );
  }
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  // The demo is behind the same door: with keys configured, it is not a free public endpoint.
  for (const path of ["/v1/*", "/demo/*"]) {
    app.use(path, async (c, next) => {
      if (await isAuthorized(c.req.header("authorization"))) return next();
      return errorResponse({
        status: 401,
        message: "Missing or invalid relay key; send `Authorization: Bearer <key>`.",
        type: "invalid_request_error",
        code: "invalid_api_key",
      }, { "www-authenticate": "Bearer" });
    });
  }
  app.get("/v1/models", (c) => {
    const ids = demo !== undefined ? [DEMO_MODEL] : config.upstreams.flatMap((u) => u.model ?? []);
    const data = [...new Set(ids)].map((id) => ({
      id,
      object: "model",
      created: 0,
      owned_by: "stopstream",
    }));
    return c.json({ object: "list", data });
  });
  if (demo !== undefined) app.use("/v1/chat/completions", callerDrop());
  app.post("/v1/chat/completions", async (c) => {
    const text = await readLimited(c.req.raw, config.maxBodyBytes);
    if (typeof text !== "string") return errorResponse(text);
    const body = parseChatRequest(text);
    if (isFailure(body)) return errorResponse(body);

    const origin = new URL(c.req.url).origin;
    const inProcess: InProcessDemo | undefined = demo && {
      baseURL: `${origin}/demo/v1`,
      handler: demo,
      fault: c.req.header(DEMO_FAULT_HEADER) ?? null,
    };
    const upstreams: ResolvedUpstream[] = inProcess
      ? [{
        baseURL: inProcess.baseURL,
        apiKey: undefined,
        protocol: "openai-chat",
        model: undefined,
      }]
      : config.upstreams;
    const streaming = body.stream === true;
    const resumable = streams !== undefined && streaming && wantsResumable(c.req.raw.headers);
    // An upstream that cannot honour the request (Anthropic and `response_format`) is skipped.
    const usable = (index: number): boolean => canHonour(body, upstreams[index]!.protocol);
    if (!upstreams.some((_, index) => usable(index))) {
      return errorResponse({
        status: 400,
        message: "None of this relay's upstreams can honour `response_format` (Anthropic " +
          "Messages has no equivalent); leave it out, or add an upstream that has one.",
        type: "invalid_request_error",
        code: "unsupported_parameter",
      });
    }
    const route = cooldowns.route(usable);
    const upstream = createUpstreamFetch(config.fetch, inProcess);
    const call: StreamChatOptions = {
      ...callOptions(
        route.order.map((index) => upstreams[index]!),
        body,
        forwardedHeaders(c.req.raw.headers),
        resumable ? undefined : (target) => route.fetchFor(target, upstream.fetch),
      ),
      ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
      ...(config.retry !== undefined ? { retry: config.retry } : {}),
      ...(config.timeouts !== undefined ? { timeouts: config.timeouts } : {}),
    };
    const id = `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`;
    const model = upstreams[0]?.model ?? (typeof body.model === "string" ? body.model : DEMO_MODEL);
    const streamOptions = body.stream_options as { include_usage?: unknown } | null | undefined;
    const includeUsage = streamOptions?.include_usage === true;
    const progress = wantsProgress(c.req.raw.headers);
    if (resumable && streams !== undefined) {
      // The call runs in the stream's Durable Object: a caller who leaves does not stop it.
      const { response, outcomes } = await startStream(streams, c.req.raw, {
        call,
        upstreams: route.order,
        demo: inProcess && {
          baseURL: inProcess.baseURL,
          wordDelayMs: config.demo.wordDelayMs,
          fault: inProcess.fault,
        },
        chat: { id, model, includeUsage, progress },
        keepAliveMs: config.keepAliveMs,
      });
      if (outcomes !== undefined) route.report(outcomes);
      return response;
    }
    // Aborted when the caller disconnects (on Workers with the `enable_request_signal` flag).
    const abort = abortOnDisconnect(c.req.raw.signal);
    const local: StreamChatOptions = {
      ...call,
      // A non-streaming caller sees nothing before the end, so a failure mid-answer is retried.
      ...(streaming ? {} : { onPartial: "retry" as const }),
      // Fires when the caller disconnects or the response is cancelled: never retried.
      signal: abort.signal,
      ...(retryBudget !== undefined ? { retryBudget } : {}),
    };

    if (!streaming) {
      // Held whole before it is sent: a runaway upstream must not fill the isolate's memory.
      let overLimit = false;
      upstream.tap.limit = config.maxStreamBytes;
      upstream.tap.onLimit = () => {
        overLimit = true;
        abort.abort(new Error("the answer passed the relay's limit"));
      };
      const plan = planCall(local);
      const logprobs: LogprobsTap = { lists: undefined };
      collectLogprobs(plan, logprobs);
      const chat = new Call(plan);
      const answer = chat.result.catch((error: unknown) => {
        throw overLimit ? answerTooLarge(config.maxStreamBytes) : error;
      }).then((result) => {
        // Also in the body: after the commit the headers can no longer say it.
        const stopstream = {
          upstream: route.upstreamOf(result.target?.index ?? 0),
          attempts: result.attempts,
        };
        const completion = toChatCompletion(result, result.id || id, result.model || model);
        // Only an openai-chat answer has them (a fallback of another protocol may have answered).
        if (logprobs.lists !== undefined && result.target?.protocol === "openai-chat") {
          completion.choices[0]!.logprobs = logprobs.lists;
        }
        return {
          json: JSON.stringify({ ...completion, stopstream }),
          headers: {
            "x-stopstream-attempts": String(stopstream.attempts),
            [UPSTREAM_HEADER]: String(stopstream.upstream),
          },
        };
      });
      route.watch(chat.result);
      return await jsonResponse({
        answer,
        abort,
        keepAliveMs: config.keepAliveMs,
        secrets,
        attempts: () => upstream.calls,
      });
    }
    const encoder = chunkEncoder(id, model, includeUsage, progress);
    const chat = relayChat(local, encoder, upstream.tap);
    const response = sseResponse({
      stream: chat,
      abort,
      encoder,
      keepAliveMs: config.keepAliveMs,
      secrets,
      attempts: () => upstream.calls,
      upstreamOf: (target) => route.upstreamOf(target),
    });
    route.watch(chat.result); // after sseResponse began iterating: its events are kept
    return await response;
  });
  if (streams !== undefined) app.route("/", streamRoutes(streams));
  if (demo !== undefined) {
    app.all("/demo/v1/chat/completions", async (c) => {
      // The same body limit as the chat route: this route is as public as the relay.
      if (c.req.method !== "POST") return demo(c.req.raw);
      const text = await readLimited(c.req.raw, config.maxBodyBytes);
      if (typeof text !== "string") return errorResponse(text);
      return demo(new Request(c.req.raw, { body: text }));
    });
  }

  app.all("/v1/chat/completions", (c) => methodNotAllowed(c.req.method, "POST"));
  app.all("/v1/models", (c) => methodNotAllowed(c.req.method, "GET"));
  app.all("/healthz", (c) => methodNotAllowed(c.req.method, "GET"));
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

function isFailure(value: ChatRequestBody | RelayFailure): value is RelayFailure {
  return !Array.isArray((value as ChatRequestBody).messages);
}
