/**
 * The wording of stopstream's errors: one sentence each, for a person, saying what happened and
 * what to do, with one `stopstream:` prefix and no chain of causes (that stays in `cause`).
 * Pure string building; `error_classes.ts` holds the classes and their fields.
 *
 * @module
 */

import type { RedirectReason, TimeoutPhase } from "./error_classes.ts";

/** What fired, by phase: `#` stands for the limit in ms, and each names the option that sets it. */
const TIMEOUT_TEXT: Record<TimeoutPhase, string> = {
  headers: "the server sent no response within # ms (timeouts.headersMs)",
  "first-event": "the server sent no data within # ms of answering (timeouts.firstEventMs)",
  idle: "the stream went silent for # ms (timeouts.idleMs; pings do not count)",
  total: "the call took over # ms (timeouts.totalMs)",
};

/** Advice by status; other statuses get "try again later" when transient, else "check the request". */
const STATUS_ADVICE: Record<number, string> = {
  401: "check the API key",
  403: "check that the key may use this model",
  404: "check the base URL and the model name",
  413: "send a smaller request",
  429: "wait and try again, or check your quota",
};

/**
 * A `TimeoutError`'s sentence.
 *
 * @example
 * ```ts
 * timeoutMessage("total", 5000); // "stopstream: the call took over 5000 ms (timeouts.totalMs); try again later, or raise the limit"
 * ```
 */
export function timeoutMessage(phase: TimeoutPhase, timeoutMs: number): string {
  return `stopstream: ${timeoutText(phase, timeoutMs)}; try again later, or raise the limit`;
}

/**
 * An `APIStatusError`'s sentence: the status, the provider's message quoted once, the advice.
 *
 * @example
 * ```ts
 * statusMessage(401, { error: { message: "Bad key." } }); // 'stopstream: the server answered HTTP 401 ("Bad key"); check the API key'
 * ```
 */
export function statusMessage(status: number, body: unknown): string {
  const advice = STATUS_ADVICE[status] ??
    (status === 408 || status === 409 || status >= 500 ? "try again later" : "check the request");
  return `stopstream: the server answered HTTP ${status}${status < 400 ? " with an error" : ""}${
    quoted(bodyMessage(body))
  }; ${advice}`;
}

/**
 * An `UpstreamStreamError`'s sentence.
 *
 * @example
 * ```ts
 * upstreamMessage("Overloaded", true); // 'stopstream: the provider reported an error ("Overloaded"); try again later'
 * ```
 */
export function upstreamMessage(providerMessage: string, retryable: boolean): string {
  return `stopstream: the provider reported an error${quoted(providerMessage)}; ${
    retryable ? "try again later" : "check the request"
  }`;
}

/**
 * A `PartialStreamError`'s sentence: what broke, in a few words, never the cause's own text.
 *
 * @example
 * ```ts
 * partialMessage(new ConnectionError("…")); // "stopstream: the connection was lost after part of the answer had arrived; …"
 * ```
 */
export function partialMessage(cause: unknown): string {
  return `stopstream: ${whatBroke(cause)} after part of the answer had arrived; that part is ` +
    "kept, and sending the request again gets a complete answer";
}

/**
 * A `StreamProtocolError`'s sentence for an answer that is not what the protocol sends: what
 * came, with the start of it quoted.
 *
 * @example
 * ```ts
 * malformedMessage("the non-streaming answer is not JSON", "<html>…"); // 'stopstream: the non-streaming answer is not JSON ("<html>…"); check the base URL and the protocol'
 * ```
 */
export function malformedMessage(what: string, text: string): string {
  return `stopstream: ${what}${quoted(text, 120)}; check the base URL and the protocol`;
}

/**
 * The sentence for an SSE event or a whole answer larger than `maxEventBytes`.
 *
 * @example
 * ```ts
 * oversizedMessage("an SSE event", 1024); // "stopstream: an SSE event exceeded 1024 bytes (maxEventBytes); raise the limit if …"
 * ```
 */
export function oversizedMessage(what: string, cap: number): string {
  return `stopstream: ${what} exceeded ${cap} bytes (maxEventBytes); raise the limit if the ` +
    "provider sends that much";
}

/**
 * An `InterruptedError`'s sentence: who stopped the call.
 *
 * @example
 * ```ts
 * interruptedMessage("by its AbortSignal"); // "stopstream: the call was interrupted by its AbortSignal; nothing more is sent or read"
 * ```
 */
export function interruptedMessage(by: string): string {
  return `stopstream: the call was interrupted ${by}; nothing more is sent or read`;
}

/**
 * What a malformed stream is called, in a partial failure's sentence and (quoting the event) in
 * the error for an event of a shape its decoder cannot read.
 *
 * @example
 * ```ts
 * malformedMessage(MALFORMED_STREAM, data);
 * ```
 */
export const MALFORMED_STREAM = "the server sent a malformed stream";

/**
 * A `ConnectionError`'s sentence for a connection that failed or closed once the request was
 * sent: mid-stream, mid-body, or before the stream's terminal event.
 *
 * @example
 * ```ts
 * throw new ConnectionError(CONNECTION_LOST, { cause: error });
 * ```
 */
export const CONNECTION_LOST =
  "stopstream: the connection was lost before the answer ended; try again";

const REDIRECTED: Record<RedirectReason, string> = {
  "cross-origin": "to another origin, where the key must not go",
  loop: "in a loop",
  "too-many": "more than 5 times",
  opaque: "(the browser hides where to)",
  credentials: "to a URL with credentials in it",
  "see-other": "with a 303, which asks for a GET instead",
};

/**
 * A `RedirectError`'s sentence.
 *
 * @example
 * ```ts
 * redirectMessage("loop", "https://api.example"); // "stopstream: the server redirected in a loop (https://api.example); …"
 * ```
 */
export function redirectMessage(reason: RedirectReason, origin: string | undefined): string {
  return `stopstream: the server redirected ${REDIRECTED[reason]}${
    origin ? ` (${origin})` : ""
  }; use the URL it redirects to as the base URL if you trust it`;
}

function bodyMessage(body: unknown): string {
  if (typeof body === "string") return /^\s*</.test(body) ? "" : body; // an HTML page says nothing
  const error = (body as { error?: { message?: unknown } | string } | null)?.error;
  if (typeof error === "string") return error;
  if (error && typeof error.message === "string") return error.message;
  return "";
}

/**
 * Someone else's words (a provider's error message, the start of a bad answer) inside one of
 * our sentences: on one line, trimmed, without a trailing period or a `stopstream:` prefix of
 * its own, cut after `cap` characters, in parentheses with a leading space; empty text adds
 * nothing.
 *
 * @example
 * ```ts
 * `the provider reported an error${quoted("Overloaded.\n")}`; // 'the provider reported an error ("Overloaded")'
 * ```
 */
export function quoted(text: string, cap = 200): string {
  let said = text.replace(/\s+/g, " ").replace(/^ ?(stopstream: )*/, "").replace(/[ .]+$/, "");
  if (said.length > cap) said = `${said.slice(0, cap)}…`;
  return said === "" ? "" : ` ("${said}")`;
}

/** What broke a stream, in a few words, from its error's class and fields. */
function whatBroke(cause: unknown): string {
  const { name, status, phase, timeoutMs } = (cause ?? {}) as {
    name?: unknown;
    status?: number;
    phase: TimeoutPhase;
    timeoutMs: number;
  };
  switch (name) {
    case "ConnectionError":
      return "the connection was lost";
    case "UpstreamStreamError":
      return "the provider reported an error";
    case "StreamProtocolError":
      return MALFORMED_STREAM;
    case "APIStatusError":
      return `the server answered HTTP ${status}`;
    case "TimeoutError":
      return timeoutText(phase, timeoutMs);
    default:
      return "the stream failed";
  }
}

function timeoutText(phase: TimeoutPhase, timeoutMs: number): string {
  return TIMEOUT_TEXT[phase].replace("#", String(timeoutMs));
}
