import type { APIStatusError, RedirectReason, TimeoutPhase } from "../core/error_classes.ts";
import {
  isAPIStatusError,
  isConnectionError,
  isInterruptedError,
  isPartialStreamError,
  isRedirectError,
  isStreamProtocolError,
  isTimeoutError,
  isUpstreamStreamError,
} from "../core/error_guards.ts";
import { quoted } from "../core/error_messages.ts";
import { excerpt, redact, redactMasked } from "../core/redact.ts";
import { retryAfterMs } from "../client/internal.ts";
import type { RelayFailure } from "./error_response.ts";

/** Longest upstream error text passed on; redacted before it is cut. */
const MAX_MESSAGE = 500;
const MAX_LOGGED = 200;

/** One sentence that says what to do, with no key; non-error upstream text goes to the log only. */
export function describeFailure(error: unknown, secrets: readonly string[]): RelayFailure {
  // The relay's own verdict (a limit it enforces), made where the call was watched: as it is.
  if (isRelayFailure(error)) return { ...error };
  const partial = isPartialStreamError(error);
  const cause = partial ? error.cause : error;
  const { failure, what } = classify(cause, secrets);
  if (partial) {
    failure.message = `${
      capitalise(what)
    } after part of the answer was sent; send the request again.`;
    failure.code = "incomplete_stream";
  }
  failure.message = redactKeys(failure.message, secrets);
  const detail = detailOf(cause);
  if (detail !== undefined) {
    const logged = redactKeys(excerpt(detail, MAX_LOGGED, secrets), secrets);
    console.warn(`stopstream relay: ${failure.code ?? failure.type}: ${logged}`);
  }
  return failure;
}

type Classified = { failure: RelayFailure; what: string };

/** `what`: a few words (lower case) that a partial failure builds its own sentence from. */
function classify(error: unknown, secrets: readonly string[]): Classified {
  if (isAPIStatusError(error)) {
    const upstream = upstreamError(error.body, secrets);
    const what = `the upstream answered HTTP ${error.status}`;
    if (error.status === 401 || error.status === 403) {
      // Not the caller's 401: callers must tell the relay's upstream key from their relay key.
      const message = `The upstream refused the relay's credentials (HTTP ${error.status}); the ` +
        "relay's upstream key needs fixing (the relay log has the upstream's answer).";
      return failed(what, 502, "upstream_auth_error", message);
    }
    if (error.status >= 400 && error.status < 500) {
      const message = upstream.message ?? `${capitalise(what)}; check the request.`;
      const type = upstream.type ?? "invalid_request_error";
      const result = failed(what, error.status, upstream.code ?? null, message, type);
      if (error.status === 429) result.failure.headers = retryHeaders(error);
      return result;
    }
    const said = quoted(upstream.message ?? "", Infinity);
    return failed(what, 502, "upstream_status", `${capitalise(what)}${said}; try again later.`);
  }
  if (isTimeoutError(error)) {
    const what = TIMED_OUT[error.phase].replace("#", String(error.timeoutMs));
    return failed(what, 504, "upstream_timeout", `${capitalise(what)}; try again later.`);
  }
  if (isConnectionError(error)) {
    const message = "The connection to the upstream failed; try again later.";
    return failed("the connection to the upstream was lost", 502, "upstream_connection", message);
  }
  if (isStreamProtocolError(error)) {
    const message = "The upstream's answer was not a valid event stream; check the relay's " +
      "upstream configuration (base URL and protocol).";
    return failed("the upstream's stream turned malformed", 502, "upstream_protocol", message);
  }
  if (isUpstreamStreamError(error)) {
    // Redacted before it is cut: a cut key is no longer the key.
    const said = excerpt(error.providerMessage, MAX_MESSAGE, secrets);
    const what = `the upstream reported an error${quoted(said, Infinity)}`;
    const advice = error.retryable ? "try again later" : "check the request";
    const code = error.errorType === undefined
      ? "upstream_stream_error"
      : shortField(error.errorType, secrets);
    return failed(what, 502, code, `${capitalise(what)}; ${advice}.`);
  }
  if (isRedirectError(error)) {
    // Where it pointed is for the log: it may be an internal host.
    const pointed = error.targetOrigin === undefined ? "" : " (the relay log has where it pointed)";
    const redirected = REDIRECTED[error.reason];
    const message = `The upstream ${redirected}; check the relay's upstream base URL${pointed}.`;
    return failed("the upstream redirected the request", 502, "upstream_redirect", message);
  }
  if (isInterruptedError(error)) {
    // Only reached when the caller went away; nobody reads this, 499 is what proxies log.
    const what = "the caller closed the request";
    return failed(what, 499, null, "The caller closed the request.", "client_closed");
  }
  const message = "The relay failed unexpectedly; try again, and report it if it keeps happening.";
  return failed("the relay failed unexpectedly", 500, null, message, "server_error");
}

function failed(
  what: string,
  status: number,
  code: string | null,
  message: string,
  type = "upstream_error",
): Classified {
  return { what, failure: { status, message, type, code } };
}

const REDIRECTED: Record<RedirectReason, string> = {
  "cross-origin": "redirected the request to another origin, which the relay does not follow " +
    "(the key must not go there)",
  loop: "redirected the request in a loop",
  "too-many": "redirected the request more than 5 times, more than the relay follows",
  opaque: "redirected the request, and the runtime hid where to, so the relay could not follow it",
  credentials: "redirected the request to a URL with credentials in it, which the relay does " +
    "not follow",
  "see-other": "answered 303 See Other, which asks for a GET instead of the POST, so the relay " +
    "did not follow it",
};

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

/** The server's own wait, passed on with a 429 when it is one the client would honour. */
function retryHeaders(error: APIStatusError): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const name of ["retry-after", "retry-after-ms"]) {
    const value = error.headers[name];
    if (value !== undefined && retryAfterMs({ [name]: value }) !== undefined) {
      passed[name] = value.trim();
    }
  }
  return passed;
}

type UpstreamError = { message?: string; type?: string; code?: string };

/** The message of an upstream's JSON error object; text bodies are never passed on. */
function upstreamError(body: unknown, secrets: readonly string[]): UpstreamError {
  const result: UpstreamError = {};
  if (typeof body !== "object" || body === null) return result;
  const error = (body as { error?: unknown }).error;
  const source = typeof error === "object" && error !== null ? error : body;
  const { message, type, code } = source as { message?: unknown; type?: unknown; code?: unknown };
  if (typeof error === "string") result.message = excerpt(error, MAX_MESSAGE, secrets);
  else if (typeof message === "string") result.message = excerpt(message, MAX_MESSAGE, secrets);
  if (typeof type === "string") result.type = shortField(type, secrets);
  if (typeof code === "string") result.code = shortField(code, secrets);
  else if (typeof code === "number") result.code = String(code);
  return result;
}

/** What is worth logging about a failure that callers get only a summary of. */
function detailOf(error: unknown): string | undefined {
  if (isAPIStatusError(error)) {
    if (typeof error.body === "string") return `HTTP ${error.status}: ${error.body}`;
    if (error.status === 401 || error.status === 403) {
      return `HTTP ${error.status}: ${JSON.stringify(error.body)}`;
    }
    return undefined;
  }
  if (isStreamProtocolError(error) || isRedirectError(error)) return error.message;
  return undefined;
}

/** An identifier as a rule, but the upstream's text all the same: redacted before it is cut. */
function shortField(text: string, secrets: readonly string[]): string {
  return redactKeys(text, secrets).slice(0, 100);
}

/** `message` without `secrets` (nor their heads), nor keys as providers echo them masked. */
function redactKeys(message: string, secrets: readonly string[]): string {
  return redactMasked(redact(message, secrets));
}

function isRelayFailure(value: unknown): value is RelayFailure {
  const failure = value as RelayFailure | null;
  return typeof value === "object" && value !== null && !(value instanceof Error) &&
    typeof failure!.status === "number" && typeof failure!.message === "string";
}
