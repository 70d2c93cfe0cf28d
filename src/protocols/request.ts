import type { RequestTarget } from "./protocol.ts";

/** Drops trailing `/` (char code 47) from the base before appending `path`. */
export function joinURL(baseURL: string, path: string): string {
  let end = baseURL.length;
  while (end > 0 && baseURL.charCodeAt(end - 1) === 47) end--;
  return baseURL.slice(0, end) + path;
}

/** The caller's headers win over the defaults; authentication is left to the protocol. */
export function requestHeaders(target: RequestTarget, extra?: Record<string, string>): Headers {
  const headers = new Headers({
    "content-type": "application/json",
    accept: "text/event-stream",
    ...extra,
  });
  target.headers.forEach((value, name) => headers.set(name, value));
  return headers;
}

/** The key wins over a caller's own `authorization`: it is the target's. */
export function bearerHeaders(target: RequestTarget): Headers {
  const headers = requestHeaders(target);
  if (target.apiKey !== undefined) headers.set("authorization", `Bearer ${target.apiKey}`);
  return headers;
}

/** A new body and array: `body` is reused by every attempt. */
export function appendMessage(
  body: Record<string, unknown>,
  message: Record<string, unknown>,
): Record<string, unknown> {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return { ...body, messages: [...messages, message] };
}
