/**
 * What the protocols' requests share: the URL join, the JSON/SSE request headers, and the
 * assistant turn a continuation appends.
 *
 * @module
 */

import type { RequestTarget } from "./protocol.ts";

/**
 * Joins a base URL and a path, tolerating a trailing slash on the base.
 *
 * @example
 * ```ts
 * joinURL("https://api.openai.com/v1/", "/chat/completions"); // "https://api.openai.com/v1/chat/completions"
 * ```
 */
export function joinURL(baseURL: string, path: string): string {
  let end = baseURL.length;
  while (end > 0 && baseURL.charCodeAt(end - 1) === 47) end--;
  return baseURL.slice(0, end) + path;
}

/**
 * Headers for a streaming JSON request: `content-type` and `accept` (plus the protocol's
 * `extra` defaults), then the caller's headers over them. Authentication is left to the
 * protocol (see {@linkcode bearerHeaders}).
 *
 * @example
 * ```ts
 * requestHeaders({ baseURL: "", apiKey: undefined, headers: new Headers(), body: {} }).get("accept"); // "text/event-stream"
 * ```
 */
export function requestHeaders(target: RequestTarget, extra?: Record<string, string>): Headers {
  const headers = new Headers({
    "content-type": "application/json",
    accept: "text/event-stream",
    ...extra,
  });
  target.headers.forEach((value, name) => headers.set(name, value));
  return headers;
}

/**
 * {@linkcode requestHeaders} plus `authorization: Bearer <apiKey>` when there is a key (it
 * wins over a caller's own `authorization`, as the key is the target's).
 *
 * @example
 * ```ts
 * bearerHeaders({ baseURL: "", apiKey: "sk-1", headers: new Headers(), body: {} }).get("authorization"); // "Bearer sk-1"
 * ```
 */
export function bearerHeaders(target: RequestTarget): Headers {
  const headers = requestHeaders(target);
  if (target.apiKey !== undefined) headers.set("authorization", `Bearer ${target.apiKey}`);
  return headers;
}

/**
 * `body` with `message` appended to its `messages` (a new body and array; `body` is kept).
 *
 * @example
 * ```ts
 * appendMessage({ messages: [] }, { role: "assistant", content: "Hel" }); // { messages: [{ role: "assistant", content: "Hel" }] }
 * ```
 */
export function appendMessage(
  body: Record<string, unknown>,
  message: Record<string, unknown>,
): Record<string, unknown> {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return { ...body, messages: [...messages, message] };
}
