import { CORE_KIT } from "../client/core_kit.ts";
import { lazy } from "../client/lazy.ts";
import type { LazyProtocol, ProtocolRequest, RequestTarget } from "./protocol.ts";
import { bearerHeaders, joinURL } from "./request.ts";

/** No `continuationBody`: the Responses API has no documented way to continue a partial message. */
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
