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
  type TimeoutPhase,
} from "../errors.ts";
import { quoted } from "../error_messages.ts";

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
 * Describe why a relayed call failed, in one sentence that says what to do, without ever
 * including an upstream key. Upstream 4xx answers keep their status and message; everything
 * else is a 502/504. The client's own wording (and its chain of causes) stays in the relay.
 *
 * @example
 * ```ts
 * describeFailure(new TimeoutError("idle", 30_000), []).message;
 * // "The upstream went silent for 30000 ms; try again later."
 * ```
 */
export function describeFailure(error: unknown, secrets: readonly string[]): RelayFailure {
  const partial = isPartialStreamError(error);
  const { failure, what } = classify(partial ? error.cause : error);
  if (partial) {
    failure.message = `${
      capitalise(what)
    } after part of the answer was sent; send the request again.`;
    failure.code = "incomplete_stream";
  }
  failure.message = redact(failure.message, secrets);
  return failure;
}

/**
 * The failure as sent when the call failed outright, and `what` happened in a few words
 * (lower case), which a partial failure builds its own sentence from.
 */
function classify(error: unknown): { failure: RelayFailure; what: string } {
  if (isAPIStatusError(error)) {
    const upstream = upstreamError(error.body);
    const what = `the upstream answered HTTP ${error.status}`;
    if (error.status >= 400 && error.status < 500) {
      const message = upstream.message ?? `${capitalise(what)}; check the request.`;
      return {
        what,
        failure: {
          status: error.status,
          message,
          type: upstream.type ?? "invalid_request_error",
          code: upstream.code ?? null,
        },
      };
    }
    return {
      what,
      failure: {
        status: 502,
        message: `${capitalise(what)}${quoted(upstream.message ?? "", Infinity)}; try again later.`,
        type: "upstream_error",
        code: "upstream_status",
      },
    };
  }
  if (isTimeoutError(error)) {
    const what = TIMED_OUT[error.phase].replace("#", String(error.timeoutMs));
    return {
      what,
      failure: {
        status: 504,
        message: `${capitalise(what)}; try again later.`,
        type: "upstream_error",
        code: "upstream_timeout",
      },
    };
  }
  if (isConnectionError(error)) {
    return {
      what: "the connection to the upstream was lost",
      failure: {
        status: 502,
        message: "The connection to the upstream failed; try again later.",
        type: "upstream_error",
        code: "upstream_connection",
      },
    };
  }
  if (isStreamProtocolError(error)) {
    return {
      what: "the upstream's stream turned malformed",
      failure: {
        status: 502,
        message: "The upstream's answer was not a valid event stream; check the relay's " +
          "upstream configuration (base URL and protocol).",
        type: "upstream_error",
        code: "upstream_protocol",
      },
    };
  }
  if (isUpstreamStreamError(error)) {
    // No length cap here: a cut would leave half a key that redaction no longer recognises.
    const what = `the upstream reported an error${quoted(error.providerMessage, Infinity)}`;
    return {
      what,
      failure: {
        status: 502,
        message: `${capitalise(what)}; ${
          error.retryable ? "try again later" : "check the request"
        }.`,
        type: "upstream_error",
        code: error.errorType ?? "upstream_stream_error",
      },
    };
  }
  if (isInterruptedError(error)) {
    // Only reached when the caller went away; nobody reads this, 499 is what proxies log.
    return {
      what: "the caller closed the request",
      failure: {
        status: 499,
        message: "The caller closed the request.",
        type: "client_closed",
        code: null,
      },
    };
  }
  return {
    what: "the relay failed unexpectedly",
    failure: {
      status: 500,
      message: "The relay failed unexpectedly; try again, and report it if it keeps happening.",
      type: "server_error",
      code: null,
    },
  };
}

/** `#` stands for the limit in ms. */
const TIMED_OUT: Record<TimeoutPhase, string> = {
  headers: "the upstream sent no response within # ms",
  "first-event": "the upstream sent no data within # ms",
  idle: "the upstream went silent for # ms",
  total: "the request used up its # ms time limit",
};

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
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
