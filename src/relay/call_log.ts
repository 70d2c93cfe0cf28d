// One JSON line per call on `console.log` (Workers Logs indexes its fields), written when the
// call ends: built from the client's `trace`, never from a per-event hook.

import type { ChatResult, TraceEntry } from "../core/chat_result.ts";
import { isInterruptedError, isPartialStreamError } from "../core/error_guards.ts";
import { bearerKey, sha256, toHex } from "./auth.ts";

/** How a call ended, for the one who reads the log. */
export type CallOutcome =
  | "complete"
  | "partial"
  | "error"
  | "caller_gone"
  | "cancelled"
  | "resumed";

export interface CallLogAttempt {
  /** The upstream's place in the relay's configured list (0: the primary). */
  upstream: number;
  /** The upstream's host, never its key or its URL's query. */
  host: string;
  model: string | null;
  status: number | null;
  /** The `name` of the error that ended the request (`APIStatusError`, `TimeoutError`…). */
  error: string | null;
  /** The wait before it: backoff or `Retry-After`. */
  waitMs: number;
  durationMs: number;
}

/** The line, as written (`JSON.stringify`). */
export interface CallLogLine {
  /** Always `"stopstream.call"`: what to filter the Worker's logs on. */
  message: "stopstream.call";
  callId: string;
  route: string;
  /** 12 hex digits of a hash of the caller's relay key; `null` when the relay takes no keys. */
  keyId: string | null;
  stream: boolean;
  /** A resumable stream's id. */
  streamId?: string;
  attempts: CallLogAttempt[];
  /** From the request's arrival to the first token written; `null` when none was. */
  ttftMs: number | null;
  totalMs: number;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number } | null;
  finish: string | null;
  outcome: CallOutcome;
}

/** What is known of a call when it begins, and the epoch ms of the request's arrival. */
export interface CallLogStart
  extends Pick<CallLogLine, "callId" | "route" | "keyId" | "stream" | "streamId"> {
  start: number;
}

const KEY_ID_SALT = "stopstream key id:";
/** The key id is this many bytes of {@linkcode keyDigest}: 12 hex digits. */
export const KEY_ID_BYTES = 6;

/**
 * A salted hash, so no id made of it is a prefix of the key or of the key's plain SHA-256:
 * enough to tell callers apart, nothing to guess a key from.
 */
export function keyDigest(key: string): Promise<Uint8Array> {
  return sha256(KEY_ID_SALT + key);
}

/** The key id of the relay key in `authorization`; `null` for none. */
export async function keyIdOf(authorization: string | null | undefined): Promise<string | null> {
  const key = bearerKey(authorization);
  if (key === undefined) return null;
  return toHex((await keyDigest(key)).subarray(0, KEY_ID_BYTES));
}

/** How a call that settled with `result` or `error` ended. */
export function outcomeOf(result: ChatResult | undefined, error: unknown): CallOutcome {
  if (result !== undefined) return result.partial === true ? "partial" : "complete";
  if (isPartialStreamError(error)) return "partial";
  return isInterruptedError(error) ? "caller_gone" : "error";
}

/** Where each request went, as the configured upstream (`upstreamOf`) and its host. */
function attemptsOf(
  trace: readonly TraceEntry[] | undefined,
  upstreamOf: (target: number) => number,
): CallLogAttempt[] {
  return (trace ?? []).map((t) => ({
    upstream: upstreamOf(t.target.index),
    host: hostOf(t.target.baseURL),
    model: t.target.model ?? null,
    status: t.status ?? null,
    error: t.error ?? null,
    waitMs: t.waitMs,
    durationMs: (t.end || Date.now()) - t.start,
  }));
}

/** The line for a call that ended now with `result` or `error`, written to `console.log`. */
export function logCall(
  start: CallLogStart,
  ended: {
    result?: ChatResult | undefined;
    error?: unknown;
    outcome?: CallOutcome;
    /** Epoch ms of the first token written, `0` for none. */
    firstToken: number;
    upstreamOf: (target: number) => number;
  },
): CallLogLine {
  const { result, error } = ended;
  const settled = result ?? (isPartialStreamError(error) ? error.partial : undefined);
  const trace = result?.trace ?? (error as { trace?: TraceEntry[] } | null)?.trace;
  const usage = settled?.usage;
  const { start: at, ...known } = start;
  const line: CallLogLine = {
    message: "stopstream.call",
    ...known,
    attempts: attemptsOf(trace, ended.upstreamOf),
    ttftMs: ended.firstToken > 0 ? ended.firstToken - at : null,
    totalMs: Date.now() - at,
    usage: usage === undefined ? null : {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: usage.totalTokens,
    },
    finish: settled?.finishReason ?? null,
    outcome: ended.outcome ?? outcomeOf(result, error),
  };
  console.log(JSON.stringify(line));
  return line;
}

function hostOf(baseURL: string): string {
  try {
    return new URL(baseURL).host;
  } catch {
    return "";
  }
}

/** Logs the call once `result` settles; `overruled` names an outcome the relay knows better. */
export function logWhenSettled(
  start: CallLogStart | undefined,
  result: Promise<ChatResult>,
  firstToken: () => number,
  upstreamOf: (target: number) => number,
  overruled: () => CallOutcome | undefined = () => undefined,
): void {
  if (start === undefined) return;
  const end = (ended: { result?: ChatResult; error?: unknown }): void => {
    const outcome = overruled();
    logCall(start, {
      ...ended,
      ...(outcome === undefined ? {} : { outcome }),
      firstToken: firstToken(),
      upstreamOf,
    });
  };
  result.then((settled) => end({ result: settled }), (error: unknown) => end({ error }));
}
