/**
 * OpenAI Responses streams: `POST {baseURL}/responses` with `stream: true`. The request side
 * is here; the decoder (openai_responses_decoder.ts) loads on first use, so an app that never
 * calls the Responses API never downloads it.
 *
 * @module
 */

import { CORE_KIT } from "../core_kit.ts";
import { lazy } from "../lazy.ts";
import type { LazyProtocol, ProtocolRequest, RequestTarget } from "./protocol.ts";
import { bearerHeaders, joinURL } from "./request.ts";

/**
 * The `openai-responses` protocol. It has no continuation: the Responses API has no
 * documented way to make the model continue a partial assistant message.
 *
 * @example
 * ```ts
 * const request = openAIResponses.buildRequest({ baseURL: "https://api.openai.com/v1", apiKey: "sk-…", headers: new Headers(), body: { model: "gpt-5-mini", input: "Hi" } });
 * request.url; // "https://api.openai.com/v1/responses"
 * ```
 */
export const openAIResponses: LazyProtocol = {
  name: "openai-responses",
  buildRequest(target: RequestTarget): ProtocolRequest {
    const headers = bearerHeaders(target);
    const body = JSON.stringify({ ...target.body, stream: true });
    return { url: joinURL(target.baseURL, "/responses"), headers, body };
  },
  load: lazy(
    "the openai-responses decoder",
    () =>
      import("./openai_responses_decoder.ts").then((module) => ({
        ...openAIResponses,
        ...module.responsesDecoding(CORE_KIT),
      })),
  ),
};
