// The CLI's words: status lines, failure descriptions, the summary. Pure, with no escape codes.

import {
  type ChatResult,
  type FinishReason,
  isAPIStatusError,
  isConnectionError,
  isStreamProtocolError,
  isTimeoutError,
  isUpstreamStreamError,
  type TimeoutPhase,
  type Usage,
} from "../../index.ts";

export function formatSeconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}

/** `#` stands for the limit. */
const TIMED_OUT: Record<TimeoutPhase, string> = {
  headers: "no response after #",
  "first-event": "no first token after #",
  idle: "stream stalled for #",
  total: "time limit of # reached",
};

/** Why an attempt failed, for a status line; the call's final error shows its own `message`. */
export function describeFailure(error: unknown): string {
  if (isConnectionError(error)) return "connection dropped";
  if (isTimeoutError(error)) {
    return TIMED_OUT[error.phase].replace("#", formatSeconds(error.timeoutMs));
  }
  if (isAPIStatusError(error)) {
    const detail = providerMessage(error.body);
    const what = error.status === 429
      ? "rate limited (HTTP 429)"
      : error.status >= 500
      ? `server error (HTTP ${error.status})`
      : `HTTP ${error.status}`;
    // "…overloaded." would read badly before ", retrying in …".
    return detail === undefined ? what : `${what}: ${detail.replace(/\.$/, "")}`;
  }
  if (isUpstreamStreamError(error)) {
    return `upstream error: ${error.providerMessage.replace(/\.$/, "")}`;
  }
  if (isStreamProtocolError(error)) return "unexpected response";
  return error instanceof Error ? error.message.replace(/^stopstream: /, "") : String(error);
}

/** One `stopstream:` prefix: the library's error messages carry their own. */
export function failureLine(error: unknown): string {
  const sentence = error instanceof Error ? error.message : `stopstream: ${String(error)}`;
  const attempts = (error as { attempts?: unknown } | null)?.attempts;
  return typeof attempts === "number" && attempts > 1
    ? `${sentence} (gave up after ${attempts} attempts)`
    : sentence;
}

const FINISH_NOTES: Partial<Record<FinishReason, string>> = {
  length: "cut at the token limit",
  content_filter: "withheld by the content filter",
  error: "cut off by an error",
};

/** `resuming`: the client resumes a stream the server kept running. */
export function retryLine(
  error: unknown,
  delayMs: number,
  attempt: number,
  maxAttempts: number,
  resuming = false,
): string {
  return `${describeFailure(error)}, ${resuming ? "resuming the answer" : "retrying"} in ` +
    `${formatSeconds(delayMs)} (attempt ${attempt}/${maxAttempts})`;
}

export interface SummaryFacts {
  elapsedMs: number;
  firstTokenMs: number | undefined;
  usage: Usage | undefined;
  attempts: number;
  finishReason?: FinishReason | undefined;
}

export function summaryLine(facts: SummaryFacts): string {
  const first = facts.firstTokenMs === undefined
    ? "no tokens"
    : `first token ${formatSeconds(facts.firstTokenMs)}`;
  const tokens = facts.usage === undefined
    ? "token usage not reported"
    : `${facts.usage.inputTokens} in / ${facts.usage.outputTokens} out tokens`;
  const attempts = `${facts.attempts} attempt${facts.attempts === 1 ? "" : "s"}`;
  const note = facts.finishReason === undefined ? undefined : FINISH_NOTES[facts.finishReason];
  return `${first} · ${tokens} · ${attempts} · ${formatSeconds(facts.elapsedMs)} total` +
    (note === undefined ? "" : ` · ${note}`);
}

/** Errors become `{ name, message }`: an `Error` has no own enumerable fields (it prints `{}`). */
export function resultJSON(result: ChatResult): string {
  return JSON.stringify(
    result,
    (_key, value: unknown) =>
      value instanceof Error ? { name: value.name, message: value.message } : value,
    2,
  );
}

/** A server must not drive the user's terminal; newlines, tabs and carriage returns stay. */
export function stripControls(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g, "");
}

function providerMessage(body: unknown): string | undefined {
  if (typeof body === "string") return body.trim() === "" ? undefined : body.slice(0, 200);
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === "string") return error;
  const message = (error as { message?: unknown } | null | undefined)?.message;
  return typeof message === "string" ? message : undefined;
}
