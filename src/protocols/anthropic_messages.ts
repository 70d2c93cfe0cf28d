import { CORE_KIT } from "../client/core_kit.ts";
import { lazy } from "../client/lazy.ts";
import type { LazyProtocol, ProtocolRequest, RequestTarget } from "./protocol.ts";
import { appendMessage, joinURL, requestHeaders } from "./request.ts";

export const anthropicMessages: LazyProtocol = {
  name: "anthropic-messages",
  buildRequest(target: RequestTarget): ProtocolRequest {
    const headers = requestHeaders(target, { "anthropic-version": "2023-06-01" });
    // The caller's own x-api-key (a gateway's, say) is kept as given.
    if (target.apiKey !== undefined && !target.headers.has("x-api-key")) {
      headers.set("x-api-key", target.apiKey);
    }
    const body = JSON.stringify({ ...target.body, stream: true });
    return { url: joinURL(target.baseURL, "/messages"), headers, body };
  },
  continuationBody(body: Record<string, unknown>, partialText: string): Record<string, unknown> {
    // Assistant prefill. The API rejects a final assistant turn ending in whitespace: it is
    // trimmed here and skipped again when the model re-sends it (the decoder's `#skip`).
    const prefill = partialText.trimEnd();
    if (prefill === "") return body;
    return appendMessage(body, { role: "assistant", content: prefill });
  },
  load: lazy(
    "the anthropic-messages decoder",
    () =>
      import("./anthropic_decoder.ts").then((module) => ({
        ...anthropicMessages,
        ...module.anthropicDecoding(CORE_KIT),
      })),
  ),
};
