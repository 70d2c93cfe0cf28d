/** The `error` object of OpenAI's error shape, plus the HTTP status it is sent with. */
export interface RelayFailure {
  status: number;
  message: string;
  type: string;
  code: string | null;
  /** Response headers that go with it (a passed-on 429's `retry-after`). */
  headers?: Record<string, string>;
}

/** `shape`: the error body of the caller's protocol (OpenAI's by default). */
export function errorResponse(
  failure: RelayFailure,
  headers?: HeadersInit,
  shape: (failure: RelayFailure) => unknown = errorBody,
): Response {
  const all = new Headers(headers);
  for (const [name, value] of Object.entries(failure.headers ?? {})) all.set(name, value);
  return Response.json(shape(failure), { status: failure.status, headers: all });
}

export function errorBody(failure: RelayFailure): { error: Record<string, unknown> } {
  return {
    error: { message: failure.message, type: failure.type, param: null, code: failure.code },
  };
}

/** A thrown error the relay did not expect: no detail, which could tell secrets. */
export const UNEXPECTED: RelayFailure = {
  status: 500,
  message: "The relay failed unexpectedly.",
  type: "server_error",
  code: null,
};

/** The caller's request refused, in OpenAI's `invalid_request_error` type. */
export function invalidRequest(status: number, message: string, code: string): RelayFailure {
  return { status, message, type: "invalid_request_error", code };
}

export function notFound(method: string, path: string): Response {
  return errorResponse(invalidRequest(404, `Unknown route: ${method} ${path}`, "unknown_route"));
}

/** `/v1/streams/*` of a relay without resumable streams: no stream can exist there. */
export function noStreams(): Response {
  const message = "This relay keeps no resumable streams (it has no `streams` storage, a " +
    "Cloudflare Durable Object), so it has no stream by this or any id.";
  return errorResponse(invalidRequest(404, message, "stream_not_found"));
}

export function methodNotAllowed(
  method: string,
  allowed: string,
  shape: (failure: RelayFailure) => unknown = errorBody,
): Response {
  const message = `Method ${method} is not allowed here; use ${allowed}.`;
  const failure = invalidRequest(405, message, "method_not_allowed");
  return errorResponse(failure, { allow: allowed }, shape);
}

/** Ends a failed stream: no `[DONE]` follows it. */
export function errorEvent(failure: RelayFailure): string {
  return `data: ${JSON.stringify(errorBody(failure))}\n\n`;
}
