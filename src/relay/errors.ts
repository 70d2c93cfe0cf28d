/**
 * OpenAI-shaped error bodies, and how the relay maps stopstream's typed errors onto them.
 *
 * @module
 */

import {
  isAPIStatusError,
  isConnectionError,
  isInterruptedError,
  isPartialStreamError,
  isStreamProtocolError,
  isTimeoutError,
  isUpstreamStreamError,
} from "../errors.ts";

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
  return Response.json(errorBody(failure), { status: failure.status, headers: headers ?? {} });
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
 * Describe why a relayed call failed, without ever including an upstream key.
 * Upstream 4xx answers keep their status and message; everything else is a 502/504.
 *
 * @example
 * ```ts
 * describeFailure(new TimeoutError("idle", 30_000), []).status; // 504
 * ```
 */
export function describeFailure(error: unknown, secrets: readonly string[]): RelayFailure {
  const failure = classify(isPartialStreamError(error) ? error.cause : error);
  if (isPartialStreamError(error)) {
    failure.message =
      `The upstream stream failed after part of the answer was sent: ${failure.message}`;
    failure.code = "incomplete_stream";
  }
  failure.message = redact(failure.message, secrets);
  return failure;
}

function classify(error: unknown): RelayFailure {
  if (isAPIStatusError(error)) {
    const upstream = upstreamError(error.body);
    if (error.status >= 400 && error.status < 500) {
      return {
        status: error.status,
        message: upstream.message ?? `The upstream answered HTTP ${error.status}.`,
        type: upstream.type ?? "invalid_request_error",
        code: upstream.code ?? null,
      };
    }
    return {
      status: 502,
      message: `The upstream answered HTTP ${error.status}${
        upstream.message ? `: ${upstream.message}` : "."
      }`,
      type: "upstream_error",
      code: "upstream_status",
    };
  }
  if (isTimeoutError(error)) {
    return {
      status: 504,
      message: `The upstream timed out (${error.phase}, ${error.timeoutMs} ms).`,
      type: "upstream_error",
      code: "upstream_timeout",
    };
  }
  if (isConnectionError(error)) {
    return {
      status: 502,
      message: messageOf(error),
      type: "upstream_error",
      code: "upstream_connection",
    };
  }
  if (isStreamProtocolError(error)) {
    return {
      status: 502,
      message: messageOf(error),
      type: "upstream_error",
      code: "upstream_protocol",
    };
  }
  if (isUpstreamStreamError(error)) {
    return {
      status: 502,
      message: messageOf(error),
      type: "upstream_error",
      code: error.errorType ?? "upstream_stream_error",
    };
  }
  if (isInterruptedError(error)) {
    // Only reached when the caller went away; nobody reads this, 499 is what proxies log.
    return {
      status: 499,
      message: "The caller closed the request.",
      type: "client_closed",
      code: null,
    };
  }
  return {
    status: 500,
    message: "The relay failed unexpectedly.",
    type: "server_error",
    code: null,
  };
}

function upstreamError(body: unknown): { message?: string; type?: string; code?: string } {
  const result: { message?: string; type?: string; code?: string } = {};
  if (typeof body === "string") {
    if (body.length > 0) result.message = body.slice(0, 500);
    return result;
  }
  if (typeof body !== "object" || body === null) return result;
  const error = (body as { error?: unknown }).error;
  const source = typeof error === "object" && error !== null ? error : body;
  const { message, type, code } = source as { message?: unknown; type?: unknown; code?: unknown };
  if (typeof error === "string") result.message = error;
  else if (typeof message === "string") result.message = message;
  if (typeof type === "string") result.type = type;
  if (typeof code === "string") result.code = code;
  else if (typeof code === "number") result.code = String(code);
  return result;
}

function messageOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^stopstream: /, "");
}

/** A key as providers echo it masked (`sk-proj-****…Ab1c`): its ends are still the key's. */
const MASKED_KEY = /[\w-]*\*{4,}[\w-]*/g;

function redact(message: string, secrets: readonly string[]): string {
  let text = message;
  for (const secret of secrets) {
    // Short strings would redact ordinary words; real keys are long.
    if (secret.length >= 8) text = text.split(secret).join("[redacted]");
  }
  return text.replace(MASKED_KEY, "[redacted]");
}
