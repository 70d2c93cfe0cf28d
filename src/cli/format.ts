/**
 * The CLI's words: plain-text status lines, failure descriptions and the summary line. Pure
 * functions, no escape codes (colour is added, or not, by the renderer).
 *
 * @module
 */

import {
  type ChatResult,
  type FinishReason,
  isAPIStatusError,
  isConnectionError,
  isStreamProtocolError,
  isTimeoutError,
  isUpstreamStreamError,
  type Usage,
} from "../index.ts";

/**
 * Milliseconds as seconds with one decimal, the way status lines show time.
 *
 * @example
 * ```ts
 * formatSeconds(1234); // "1.2 s"
 * ```
 */
export function formatSeconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
}

/**
 * A short, human description of why an attempt failed, for a status line ("…, retrying in
 * 1.2 s"). The error that ends the call is shown as its own `message` instead.
 *
 * @example
 * ```ts
 * describeFailure(new ConnectionError("socket hang up")); // "connection dropped"
 * ```
 */
export function describeFailure(error: unknown): string {
  if (isConnectionError(error)) return "connection dropped";
  if (isTimeoutError(error)) {
    const after = formatSeconds(error.timeoutMs);
    switch (error.phase) {
      case "headers":
        return `no response after ${after}`;
      case "first-event":
        return `no first token after ${after}`;
      case "idle":
        return `stream stalled for ${after}`;
      case "total":
        return `time limit of ${after} reached`;
    }
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

/**
 * The line shown when a call ends in an error: the error's own sentence (one `stopstream:`
 * prefix), and how many requests were made when there was more than one.
 *
 * @example
 * ```ts
 * failureLine(new TimeoutError("total", 5000));
 * // "stopstream: the call took over 5000 ms (timeouts.totalMs); …"
 * ```
 */
export function failureLine(error: unknown): string {
  const sentence = error instanceof Error ? error.message : `stopstream: ${String(error)}`;
  const attempts = (error as { attempts?: unknown } | null)?.attempts;
  return typeof attempts === "number" && attempts > 1
    ? `${sentence} (gave up after ${attempts} attempts)`
    : sentence;
}

/** How a finished answer ended, when that is not simply the model being done. */
const FINISH_NOTES: Partial<Record<FinishReason, string>> = {
  length: "cut at the token limit",
  content_filter: "withheld by the content filter",
  error: "cut off by an error",
};

/**
 * The status line shown when the client backs off before another attempt, or before it resumes
 * a stream the server kept running (`resuming`).
 *
 * @example
 * ```ts
 * retryLine(new ConnectionError("reset"), 1234, 2, 3);
 * // "connection dropped, retrying in 1.2 s (attempt 2/3)"
 * ```
 */
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

/**
 * What the summary line reports.
 *
 * @example
 * ```ts
 * const facts: SummaryFacts = { elapsedMs: 2300, firstTokenMs: 420, usage: undefined, attempts: 1 };
 * ```
 */
export interface SummaryFacts {
  elapsedMs: number;
  /** Time from start to the first content; `undefined` when none arrived. */
  firstTokenMs: number | undefined;
  usage: Usage | undefined;
  attempts: number;
  /** Named at the end when it is `length`, `content_filter` or `error`. */
  finishReason?: FinishReason;
}

/**
 * The one-line summary printed at the end of a run.
 *
 * @example
 * ```ts
 * summaryLine({ elapsedMs: 2300, firstTokenMs: 420, attempts: 1,
 *   usage: { inputTokens: 12, outputTokens: 48, totalTokens: 60, raw: {} } });
 * // "first token 0.4 s · 12 in / 48 out tokens · 1 attempt · 2.3 s total"
 * ```
 */
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

/**
 * The final result as JSON: errors become `{ name, message }` (an `Error` has no own
 * enumerable fields, so plain `JSON.stringify` would print `{}`).
 *
 * @example
 * ```ts
 * JSON.parse(resultJSON(result)).content;
 * ```
 */
export function resultJSON(result: ChatResult): string {
  return JSON.stringify(
    result,
    (_key, value: unknown) =>
      value instanceof Error ? { name: value.name, message: value.message } : value,
    2,
  );
}

/**
 * Remove control characters a server could use to drive the user's terminal (escape
 * sequences, bells, backspaces); newlines, tabs and carriage returns stay.
 *
 * @example
 * ```ts
 * stripControls("hi\u001b[2Jthere"); // "hi[2Jthere"
 * ```
 */
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
