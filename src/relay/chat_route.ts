// `POST /v1/chat/completions`, `/v1/messages`, `/v1/responses`: one caller's request checked,
// routed past cooling upstreams, and answered in the caller's protocol as a stream, as one JSON
// answer, or as a resumable stream in a Durable Object.

import type { Context } from "hono";
import { Call, CALL_LIMITS, planCall } from "../client/internal.ts";
import type { StreamChatOptions } from "../core/chat_options.ts";
import { ATTEMPTS_HEADER, UPSTREAM_HEADER } from "../core/constants.ts";
import { identify } from "./caller.ts";
import { type CallBudget, CallerBudgets, watchAnswer } from "./caller_budget.ts";
import { abortOnDisconnect } from "./caller_signal.ts";
import { Admitted, type CallGuards } from "./call_guards.ts";
import { type CallLogStart, logWhenSettled } from "./call_log.ts";
import type { UpstreamRoute } from "./cooldown.ts";
import {
  errorResponse as failureResponse,
  invalidRequest,
  type RelayFailure,
} from "./error_response.ts";
import { type AnswerInfo, callFor, encoderFor, type Inbound } from "./inbound.ts";
import { jsonResponse } from "./json_response.ts";
import { collectLogprobs } from "./logprobs.ts";
import { partialPolicy } from "./on_partial.ts";
import type { ResolvedRelayOptions } from "./options.ts";
import { wantsProgress } from "./progress.ts";
import { readLimited } from "./request_body.ts";
import { sseResponse } from "./sse_response.ts";
import { resumableCall } from "./resumable_call.ts";
import { type StreamsConfig, wantsResumable } from "./streams/routes.ts";
import { answerTooLarge, callOptions } from "./upstream_call.ts";
import { createUpstreamFetch, forwardedHeaders, type UpstreamFetch } from "./upstream_fetch.ts";

/** The answer's model until an upstream names its own. */
const UNNAMED_MODEL = "unknown";

const NOT_RESUMABLE = invalidRequest(
  400,
  "This relay keeps no resumable streams (it has no `streams` storage, a Cloudflare Durable " +
    "Object); send the request without `x-stopstream-resumable: true`.",
  "resumable_unavailable",
);

/** The handler of the route that speaks `inbound`'s protocol. */
export function chatRoute(
  config: ResolvedRelayOptions,
  streams: StreamsConfig | undefined,
  inbound: Inbound,
  guards: CallGuards,
): (c: Context) => Promise<Response> {
  const secrets = config.upstreams.flatMap((u) => (u.apiKey ? [u.apiKey] : []));
  const upstreams = config.upstreams;
  const errorResponse = (failure: RelayFailure): Response =>
    failureResponse(failure, undefined, inbound.errorBody);
  const budgets = config.retryBudget && new CallerBudgets(config.retryBudget);
  const keyed = config.keys.length > 0;
  const maxRetries = config.maxRetries ?? (CALL_LIMITS.maxRetries[2] as number);

  return async (c) => {
    const arrived = Date.now();
    const text = await readLimited(c.req.raw, config.maxBodyBytes);
    if (typeof text !== "string") return errorResponse(text);
    const read = inbound.read(text);
    if ("failure" in read) return errorResponse(read.failure);
    const body = read.json;
    // An upstream that cannot honour the request (Anthropic and `response_format`) is skipped.
    const refusals = upstreams.map((u) => inbound.refusal(body, u.protocol));
    const usable = (index: number): boolean => refusals[index] === undefined;
    if (!upstreams.some((_, index) => usable(index))) {
      return errorResponse(inbound.refused(refusals[0]!));
    }
    const onPartial = partialPolicy(c.req.raw.headers, config.onPartial);
    if (typeof onPartial !== "string") return errorResponse(onPartial);
    const streaming = body.stream === true;
    const resumable = streaming && wantsResumable(c.req.raw.headers);
    // Said, not ignored: a caller who asked expects an answer that outlives its connection.
    if (resumable && streams === undefined) return errorResponse(NOT_RESUMABLE);
    // Told apart so that one caller can neither cool an upstream down nor spend others' retries.
    const caller = await identify(c.req.raw, keyed, guards.hashes);
    // Per-key limits answer before any upstream is asked.
    const admitted = await guards.admit(c, caller);
    if (!(admitted instanceof Admitted)) return errorResponse(admitted);
    const route = admitted.route(usable);
    const budget = budgets?.of(caller.id);
    const upstream = createUpstreamFetch(config.fetch);
    const call: StreamChatOptions = {
      ...callOptions(
        route.order.map((index) => upstreams[index]!),
        (protocol, model) => inbound.bodyFor(body, protocol, model),
        forwardedHeaders(c.req.raw.headers, config.forwardHeaders),
        resumable ? undefined : (target) => route.fetchFor(target, upstream.fetch),
      ),
      ...(config.maxRetries !== undefined ? { maxRetries: config.maxRetries } : {}),
      ...(config.retry !== undefined ? { retry: config.retry } : {}),
      timeouts: config.timeouts,
      ...(onPartial === "continue" ? { onPartial } : {}),
    };
    const streamOptions = body.stream_options as { include_usage?: unknown } | null | undefined;
    const answer: AnswerInfo = {
      id: `${inbound.idPrefix}${crypto.randomUUID().replaceAll("-", "")}`,
      model: upstreams[0]!.model ??
        (typeof body.model === "string" ? body.model : UNNAMED_MODEL),
      includeUsage: streamOptions?.include_usage === true,
      progress: wantsProgress(c.req.raw.headers),
      protocol: inbound.protocol,
    };
    const log: CallLogStart | undefined = config.logCalls
      ? {
        callId: answer.id,
        route: c.req.path,
        keyId: caller.keyId,
        stream: streaming,
        start: arrived,
      }
      : undefined;
    if (resumable && streams !== undefined) {
      const plan = { call, upstreams: route.order, chat: answer, keepAliveMs: config.keepAliveMs };
      return await resumableCall(streams, c.req.raw, log === undefined ? plan : { ...plan, log }, {
        budget,
        maxRetries: maxRetries * route.order.length,
        route,
        admitted,
      });
    }
    // Aborted when the caller disconnects (on Workers with the `enable_request_signal` flag).
    const abort = abortOnDisconnect(c.req.raw.signal);
    const local: StreamChatOptions = {
      ...call,
      // A non-streaming caller sees nothing before the end, so a failure mid-answer is retried.
      ...(streaming ? {} : { onPartial: "retry" as const }),
      // Fires when the caller disconnects or the response is cancelled: never retried.
      signal: abort.signal,
      ...(budget !== undefined ? { retryBudget: budget } : {}),
    };
    const held = {
      config,
      secrets,
      route,
      budget,
      upstream,
      abort,
      answer,
      inbound,
      admitted,
      log,
    };
    return streaming ? await streamed(held, local) : await whole(held, local);
  };
}

/** What the two kinds of answer share for one request. */
interface Held {
  config: ResolvedRelayOptions;
  secrets: readonly string[];
  route: UpstreamRoute;
  budget: CallBudget | undefined;
  upstream: UpstreamFetch;
  abort: AbortController;
  answer: AnswerInfo;
  inbound: Inbound;
  admitted: Admitted;
  log: CallLogStart | undefined;
}

async function streamed(held: Held, options: StreamChatOptions): Promise<Response> {
  const { answer, route, upstream } = held;
  const encoder = encoderFor(answer);
  const chat = callFor(options, encoder, answer.protocol, upstream.tap);
  const response = sseResponse({
    stream: chat,
    abort: held.abort,
    encoder,
    keepAliveMs: held.config.keepAliveMs,
    secrets: held.secrets,
    attempts: () => upstream.calls,
    upstreamOf: (target) => route.upstreamOf(target),
    errorBody: held.inbound.errorBody,
  });
  route.watch(chat.result); // after sseResponse began iterating: its events are kept
  watchAnswer(held.budget, chat.result);
  held.admitted.ended(chat.result);
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
    const completion = held.inbound.whole(
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
  watchAnswer(held.budget, chat.result);
  held.admitted.ended(chat.result);
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
    errorBody: held.inbound.errorBody,
  });
}
