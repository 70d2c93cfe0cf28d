// `POST /v1/chat/completions`: one caller's request checked, routed past cooling upstreams, and
// answered as a stream, as one JSON answer, or as a resumable stream in a Durable Object.

import type { Context } from "hono";
import { Call, planCall } from "../client/internal.ts";
import type { StreamChatOptions } from "../core/chat_options.ts";
import { ATTEMPTS_HEADER, UPSTREAM_HEADER } from "../core/constants.ts";
import { abortOnDisconnect } from "./caller_signal.ts";
import { type CallLogStart, keyIdOf, logWhenSettled } from "./call_log.ts";
import { toChatCompletion } from "./completion.ts";
import { UpstreamCooldowns, type UpstreamRoute } from "./cooldown.ts";
import { errorResponse, type RelayFailure } from "./error_response.ts";
import { relayChat } from "./forward.ts";
import { jsonResponse } from "./json_response.ts";
import { collectLogprobs } from "./logprobs.ts";
import type { ResolvedRelayOptions } from "./options.ts";
import { chunkEncoder, wantsProgress } from "./progress.ts";
import { type ChatRequestBody, parseChatRequest, readLimited } from "./request_body.ts";
import { sseResponse } from "./sse_response.ts";
import { startStream, type StreamsConfig, wantsResumable } from "./streams/routes.ts";
import { canHonour } from "./translate_request.ts";
import { answerTooLarge, callOptions } from "./upstream_call.ts";
import { createUpstreamFetch, forwardedHeaders, type UpstreamFetch } from "./upstream_fetch.ts";

const CHAT_ROUTE = "/v1/chat/completions";
/** The answer's model until an upstream names its own. */
const UNNAMED_MODEL = "unknown";

const NOT_RESUMABLE: RelayFailure = {
  status: 400,
  message: "This relay keeps no resumable streams (it has no `streams` storage, a Cloudflare " +
    "Durable Object); send the request without `x-stopstream-resumable: true`.",
  type: "invalid_request_error",
  code: "resumable_unavailable",
};

/** What one answer needs besides the call: its id and model, how it is written. */
interface Answer {
  id: string;
  model: string;
  includeUsage: boolean;
  progress: boolean;
}

/** The route's handler; the cooldowns and the retry budget live as long as it (an isolate). */
export function chatRoute(
  config: ResolvedRelayOptions,
  streams: StreamsConfig | undefined,
): (c: Context) => Promise<Response> {
  const secrets = config.upstreams.flatMap((u) => (u.apiKey ? [u.apiKey] : []));
  const cooldowns = new UpstreamCooldowns(config.upstreams.length, {
    failures: config.cooldownFailures,
    cooldownMs: config.cooldownMs,
  });
  const upstreams = config.upstreams;

  return async (c) => {
    const arrived = Date.now();
    const text = await readLimited(c.req.raw, config.maxBodyBytes);
    if (typeof text !== "string") return errorResponse(text);
    const body = parseChatRequest(text);
    if (!isChatRequest(body)) return errorResponse(body);
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
    const streaming = body.stream === true;
    const resumable = streaming && wantsResumable(c.req.raw.headers);
    // Said, not ignored: a caller who asked expects an answer that outlives its connection.
    if (resumable && streams === undefined) return errorResponse(NOT_RESUMABLE);
    const route = cooldowns.route(usable);
    const upstream = createUpstreamFetch(config.fetch);
    const call: StreamChatOptions = {
      ...callOptions(
        route.order.map((index) => upstreams[index]!),
        body,
        forwardedHeaders(c.req.raw.headers, config.forwardHeaders),
        resumable ? undefined : (target) => route.fetchFor(target, upstream.fetch),
      ),
      ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
      ...(config.retry !== undefined ? { retry: config.retry } : {}),
      ...(config.timeouts !== undefined ? { timeouts: config.timeouts } : {}),
    };
    const streamOptions = body.stream_options as { include_usage?: unknown } | null | undefined;
    const answer: Answer = {
      id: `chatcmpl-${crypto.randomUUID().replaceAll("-", "")}`,
      model: upstreams[0]!.model ??
        (typeof body.model === "string" ? body.model : UNNAMED_MODEL),
      includeUsage: streamOptions?.include_usage === true,
      progress: wantsProgress(c.req.raw.headers),
    };
    const log: CallLogStart | undefined = config.logCalls
      ? {
        callId: answer.id,
        route: CHAT_ROUTE,
        keyId: await keyIdOf(c.req.header("authorization")),
        stream: streaming,
        start: arrived,
      }
      : undefined;
    if (resumable && streams !== undefined) {
      // The call runs in the stream's Durable Object: a caller who leaves does not stop it.
      const { response, outcomes } = await startStream(streams, c.req.raw, {
        call,
        upstreams: route.order,
        chat: answer,
        keepAliveMs: config.keepAliveMs,
        ...(log === undefined ? {} : { log }),
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
      ...(config.retryBudget !== undefined ? { retryBudget: config.retryBudget } : {}),
    };
    const held = { config, secrets, route, upstream, abort, answer, log };
    return streaming ? await streamed(held, local) : await whole(held, local);
  };
}

/** What the two kinds of answer share for one request. */
interface Held {
  config: ResolvedRelayOptions;
  secrets: readonly string[];
  route: UpstreamRoute;
  upstream: UpstreamFetch;
  abort: AbortController;
  answer: Answer;
  log: CallLogStart | undefined;
}

async function streamed(held: Held, options: StreamChatOptions): Promise<Response> {
  const { answer, route, upstream } = held;
  const encoder = chunkEncoder(answer.id, answer.model, answer.includeUsage, answer.progress);
  const chat = relayChat(options, encoder, upstream.tap);
  const response = sseResponse({
    stream: chat,
    abort: held.abort,
    encoder,
    keepAliveMs: held.config.keepAliveMs,
    secrets: held.secrets,
    attempts: () => upstream.calls,
    upstreamOf: (target) => route.upstreamOf(target),
  });
  route.watch(chat.result); // after sseResponse began iterating: its events are kept
  logWhenSettled(held.log, chat.result, () => encoder.startedAt, (t) => route.upstreamOf(t));
  return await response;
}

/** A `stream: false` answer, held whole before it is sent; held within `maxStreamBytes`. */
async function whole(held: Held, options: StreamChatOptions): Promise<Response> {
  const { config, answer, route, upstream, abort } = held;
  // A runaway upstream must not fill the isolate's memory.
  let overLimit = false;
  upstream.tap.limit = config.maxStreamBytes;
  upstream.tap.onLimit = () => {
    overLimit = true;
    abort.abort(new Error("the answer passed the relay's limit"));
  };
  const plan = planCall(options);
  const logprobs = collectLogprobs(plan);
  const chat = new Call(plan);
  const json = chat.result.catch((error: unknown) => {
    throw overLimit ? answerTooLarge(config.maxStreamBytes) : error;
  }).then((result) => {
    // Also in the body: after the commit the headers can no longer say it.
    const stopstream = {
      upstream: route.upstreamOf(result.target?.index ?? 0),
      attempts: result.attempts,
    };
    // Only an openai-chat answer has them (a fallback of another protocol may have answered).
    const lists = result.target?.protocol === "openai-chat" ? logprobs.lists ?? null : null;
    const completion = toChatCompletion(
      result,
      result.id || answer.id,
      result.model || answer.model,
      lists,
    );
    return {
      json: JSON.stringify({ ...completion, stopstream }),
      headers: {
        [ATTEMPTS_HEADER]: String(stopstream.attempts),
        [UPSTREAM_HEADER]: String(stopstream.upstream),
      },
    };
  });
  route.watch(chat.result);
  // Stopped at the limit by the relay, not by a caller who left.
  logWhenSettled(held.log, chat.result, () => 0, (t) => route.upstreamOf(t), () => {
    return overLimit ? "error" : undefined;
  });
  return await jsonResponse({
    answer: json,
    abort,
    keepAliveMs: config.keepAliveMs,
    secrets: held.secrets,
    attempts: () => upstream.calls,
  });
}

function isChatRequest(value: ChatRequestBody | { status: number }): value is ChatRequestBody {
  return Array.isArray((value as ChatRequestBody).messages);
}
