/**
 * OpenAI-shaped error bodies (`{"error": {"message", "type", "param", "code"}}`), as a JSON
 * response or the body of an SSE `data:` event. What goes in them is `describe_failure.ts`'s.
 *
 * @module
 */

/**
 * The `error` object of OpenAI's error shape, plus the HTTP status it is sent with.
 *
 * @example
 * ```ts
 * const failure: RelayFailure = { status: 400, message: "bad", type: "invalid_request_error", code: null };
 * ```
 */
export interface RelayFailure {
  status: number;
  message: string;
  type: string;
  code: string | null;
  /** Response headers that go with it (a passed-on 429's `retry-after`). */
  headers?: Record<string, string>;
}

/**
 * A JSON error response in OpenAI's shape: `{"error": {"message", "type", "code"}}`.
 *
 * @example
 * ```ts
 * errorResponse({ status: 404, message: "Not found", type: "invalid_request_error", code: "not_found" });
 * ```
 */
export function errorResponse(failure: RelayFailure, headers?: HeadersInit): Response {
  const all = new Headers(headers);
  for (const [name, value] of Object.entries(failure.headers ?? {})) all.set(name, value);
  return Response.json(errorBody(failure), { status: failure.status, headers: all });
}

/**
 * The body of an OpenAI-style error, as sent in a JSON response or an SSE `data:` event.
 *
 * @example
 * ```ts
 * JSON.stringify(errorBody(failure)); // '{"error":{"message":…,"type":…,"param":null,"code":…}}'
 * ```
 */
export function errorBody(failure: RelayFailure): { error: Record<string, unknown> } {
  return {
    error: { message: failure.message, type: failure.type, param: null, code: failure.code },
  };
}

/**
 * The relay's answer to a path it does not serve, in OpenAI's error shape.
 *
 * @example
 * ```ts
 * app.notFound((c) => notFound(c.req.method, c.req.path));
 * ```
 */
export function notFound(method: string, path: string): Response {
  return errorResponse({
    status: 404,
    message: `Unknown route: ${method} ${path}`,
    type: "invalid_request_error",
    code: "unknown_route",
  });
}

/**
 * The relay's answer to a method a route does not take, naming the one it does.
 *
 * @example
 * ```ts
 * app.all("/v1/models", (c) => methodNotAllowed(c.req.method, "GET"));
 * ```
 */
export function methodNotAllowed(method: string, allowed: string): Response {
  return errorResponse({
    status: 405,
    message: `Method ${method} is not allowed here; use ${allowed}.`,
    type: "invalid_request_error",
    code: "method_not_allowed",
  }, { allow: allowed });
}

/**
 * One SSE error event, as the relay ends a failed stream (no `[DONE]` after it).
 *
 * @example
 * ```ts
 * errorEvent({ status: 502, message: "Cut.", type: "upstream_error", code: "incomplete_stream" }); // 'data: {"error":{…}}\n\n'
 * ```
 */
export function errorEvent(failure: RelayFailure): string {
  return `data: ${JSON.stringify(errorBody(failure))}\n\n`;
}
