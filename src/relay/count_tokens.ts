// `POST /v1/messages/count_tokens`: only an Anthropic upstream can count Anthropic's tokens, so
// the request goes to the first one as it came (its model set), or is refused with a 501.

import type { Context } from "hono";
import { anthropicMessages } from "../protocols/anthropic_messages.ts";
import { joinURL } from "../protocols/request.ts";
import { anthropicErrorBody } from "./anthropic_shapes.ts";
import { describeFailure } from "./describe_failure.ts";
import { errorResponse, type RelayFailure } from "./error_response.ts";
import type { ResolvedRelayOptions } from "./options.ts";
import { parseJsonObject, readLimited } from "./request_body.ts";
import { forwardedHeaders } from "./upstream_fetch.ts";

const NO_ANTHROPIC: RelayFailure = {
  status: 501,
  message: "Counting tokens needs an Anthropic Messages upstream, and none of this relay's " +
    "upstreams is one.",
  type: "not_implemented",
  code: "count_tokens_unavailable",
};

export function countTokensRoute(config: ResolvedRelayOptions): (c: Context) => Promise<Response> {
  const upstream = config.upstreams.find((u) => u.protocol === "anthropic-messages");
  const fail = (failure: RelayFailure): Response =>
    errorResponse(failure, undefined, anthropicErrorBody);
  return async (c) => {
    if (upstream === undefined) return fail(NO_ANTHROPIC);
    const text = await readLimited(c.req.raw, config.maxBodyBytes);
    if (typeof text !== "string") return fail(text);
    const parsed = parseJsonObject(text);
    if ("failure" in parsed) return fail(parsed.failure);
    const body = parsed.json;
    if (upstream.model !== undefined) body.model = upstream.model;
    // The protocol's own version and authentication headers; the answer is JSON, not a stream.
    const { headers } = anthropicMessages.buildRequest({
      baseURL: upstream.baseURL,
      apiKey: upstream.apiKey,
      headers: new Headers(forwardedHeaders(c.req.raw.headers, ["anthropic-beta"])),
      body: {},
    });
    headers.delete("accept");
    const url = joinURL(upstream.baseURL, "/messages/count_tokens");
    const init: RequestInit = {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: c.req.raw.signal,
    };
    try {
      const answer = config.fetch === undefined
        ? await fetch(url, init)
        : await config.fetch(url, init, { attempt: 1 });
      const json = await answer.text();
      return new Response(json, {
        status: answer.status,
        headers: { "content-type": "application/json" },
      });
    } catch (error) {
      return fail(describeFailure(error, upstream.apiKey === undefined ? [] : [upstream.apiKey]));
    }
  };
}
