// The wording of errors: one sentence for a person (what happened, what to do), one
// `stopstream:` prefix, no chain of causes (that stays in `cause`).

/** The phase a `TimeoutError` fired in. */
export type TimeoutPhase = "headers" | "first-event" | "idle" | "total";

/** Why a `RedirectError` was thrown. */
export type RedirectReason =
  | "cross-origin"
  | "loop"
  | "too-many"
  | "opaque"
  | "credentials"
  | "see-other";

/** `#` stands for the limit in ms; each names the option that sets it. */
const TIMEOUT_TEXT: Record<TimeoutPhase, string> = {
  headers: "the server sent no response within # ms (timeouts.headersMs)",
  "first-event": "the server sent no data within # ms of answering (timeouts.firstEventMs)",
  idle: "the stream went silent for # ms (timeouts.idleMs; pings do not count)",
  total: "the call took over # ms (timeouts.totalMs)",
};

const STATUS_ADVICE: Record<number, string> = {
  401: "check the API key",
  403: "check that the key may use this model",
  404: "check the base URL and the model name",
  413: "send a smaller request",
  429: "wait and try again, or check your quota",
};

export function timeoutMessage(phase: TimeoutPhase, timeoutMs: number): string {
  return `stopstream: ${timeoutText(phase, timeoutMs)}; try again later, or raise the limit`;
}

export function statusMessage(status: number, body: unknown): string {
  const advice = STATUS_ADVICE[status] ??
    (status === 408 || status === 409 || status >= 500 ? "try again later" : "check the request");
  return `stopstream: the server answered HTTP ${status}${status < 400 ? " with an error" : ""}${
    quoted(bodyMessage(body))
  }; ${advice}`;
}

export function upstreamMessage(providerMessage: string, retryable: boolean): string {
  return `stopstream: the provider reported an error${quoted(providerMessage)}; ${
    retryable ? "try again later" : "check the request"
  }`;
}

/** Says what broke in a few words, never the cause's own text. */
export function partialMessage(cause: unknown): string {
  return `stopstream: ${whatBroke(cause)} after part of the answer had arrived; that part is ` +
    "kept, and sending the request again gets a complete answer";
}

export function malformedMessage(what: string, text: string): string {
  return `stopstream: ${what}${quoted(text, 120)}; check the base URL and the protocol`;
}

export function foreignMessage(expected: string, found: string, first: string): string {
  return `stopstream: the stream's events are ${found} events, not ` +
    `${expected} ones${quoted(first, 120)}; set \`protocol: "${found}"\` or check the base URL`;
}

export function oversizedMessage(what: string, cap: number): string {
  return `stopstream: ${what} exceeded ${cap} bytes (maxEventBytes); raise the limit if the ` +
    "provider sends that much";
}

export function interruptedMessage(by: string): string {
  return `stopstream: the call was interrupted ${by}; nothing more is sent or read`;
}

export const MALFORMED_STREAM = "the server sent a malformed stream";

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

/** Someone else's words on one line, trimmed, cut at `cap`, in parentheses; empty adds nothing. */
export function quoted(text: string, cap = 200): string {
  let said = text.replace(/\s+/g, " ").replace(/^ ?(stopstream: )*/, "").replace(/[ .]+$/, "");
  if (said.length > cap) said = `${said.slice(0, cap)}…`;
  return said === "" ? "" : ` ("${said}")`;
}

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
