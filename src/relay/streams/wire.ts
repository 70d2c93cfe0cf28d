// What the Worker and its `RelayStream` Durable Object agree on.

import type { CallLogStart } from "../call_log.ts";
import type { StreamChatOptions } from "../../core/chat_options.ts";
import type { RelayNamespace } from "../durable.ts";
import { errorResponse, invalidRequest } from "../error_response.ts";
import type { AnswerInfo } from "../inbound.ts";

export const OWNER_HEADER = "x-stopstream-owner";

/** Default `maxStreamReaders`; also assumed when a request does not say (an older Worker). */
export const MAX_READERS = 16;

/** Default `resumeUnreadMs`; also assumed when a plan does not say (an older Worker). */
export const UNREAD_MS = 120_000;

/** Kept in memory only (upstream keys included), never stored. */
export interface StartPlan {
  id: string;
  owner: string;
  /** The `streamChat` options, minus what cannot cross to the Durable Object (signal, fetch). */
  call: StreamChatOptions;
  /** The configured index of each target (cooldown may have skipped some), for the labels. */
  upstreams: readonly number[];
  /** How the answer is written: its id, model, and the caller's protocol. */
  chat: AnswerInfo;
  keepAliveMs: number;
  /** Retries lent by the Worker's budget (caller_budget.ts); absent: the call has no budget. */
  retries?: number;
  ttlMs: number;
  maxBytes: number;
  /** How long the running stream may have no reader before it is stopped. */
  unreadMs?: number;
  /** What the call's log line starts with; absent when the relay logs no calls. */
  log?: CallLogStart;
}

/** Option groups whose numbers may be `Infinity` (no limit), which JSON cannot carry. */
const LIMIT_GROUPS = ["retry", "timeouts"] as const;

/** A target's `apiKey: undefined` (no key, none inherited, see app.ts): JSON drops `undefined`. */
const NO_KEY = null;

/** `Infinity` travels as `null`, which no valid option is; NaN and -Infinity throw RangeError. */
export function encodePlan(plan: StartPlan): string {
  const call = mapCallLimits(plan.call, NO_KEY, (name, value) => {
    if (value === Number.POSITIVE_INFINITY) return null;
    if (typeof value === "number" && !Number.isFinite(value)) {
      throw new RangeError(`stopstream relay: ${name} cannot be ${value}`);
    }
    return value;
  });
  return JSON.stringify({ ...plan, call });
}

export function decodePlan(text: string): StartPlan {
  const plan = JSON.parse(text) as StartPlan;
  const call = mapCallLimits(plan.call, undefined, (_name, value) => {
    return value === null ? Number.POSITIVE_INFINITY : value;
  });
  return { ...plan, call };
}

function mapCallLimits<T extends Partial<StreamChatOptions>>(
  call: T,
  noKey: null | undefined,
  map: (name: string, value: unknown) => unknown,
): T {
  const mapped: Record<string, unknown> = { ...call };
  if ("apiKey" in call && call.apiKey == null) mapped.apiKey = noKey;
  for (const group of LIMIT_GROUPS) {
    const limits = call[group] as Record<string, unknown> | undefined;
    if (limits == null) continue;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(limits)) out[key] = map(`${group}.${key}`, value);
    mapped[group] = out;
  }
  if (Array.isArray(call.fallbacks)) {
    mapped.fallbacks = call.fallbacks.map((fallback) => mapCallLimits(fallback, noKey, map));
  }
  return mapped as T;
}

/**
 * The Durable Object namespace of resumable streams (the `STREAMS` binding, class `RelayStream`),
 * as the relay uses every namespace: objects named by stream id.
 *
 * @example
 * ```ts
 * createRelay({ streams: env.STREAMS as RelayStreamNamespace });
 * ```
 */
export type RelayStreamNamespace = RelayNamespace;

/** The same answer for an unknown, expired or foreign id, so ids cannot be probed. */
export function streamNotFound(): Response {
  const message = "No such stream: the id is unknown, or the stream has expired.";
  return errorResponse(invalidRequest(404, message, "stream_not_found"));
}
