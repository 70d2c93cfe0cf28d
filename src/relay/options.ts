/**
 * The relay's options and their validation.
 *
 * @module
 */

import type { DemoUpstreamOptions } from "../demo/upstream.ts";
import { createRetryBudget, isRetryBudget, type RetryBudget } from "../retry_budget.ts";

const MAX = Number.MAX_VALUE;
/**
 * The longest delay a timer takes (about 24.8 days); a longer one fires at once in Node, and a
 * keep-alive interval that long would write every millisecond instead of never.
 */
const MAX_TIMER_MS = 2_147_483_647;
import { streamChat } from "../stream_chat.ts";
import type { ProtocolName, RetryOptions, Timeouts } from "../chat_options.ts";
import { isStreamNamespace, MAX_READERS, type RelayStreamNamespace } from "./streams/wire.ts";
import { resolveUpstreams } from "./upstreams.ts";

export { isHttpURL, PROTOCOLS } from "./upstreams.ts";

/**
 * One model provider the relay may call. The first upstream is the primary, the others are
 * fallbacks tried in order when it has used up its retries.
 *
 * @example
 * ```ts
 * const upstream: RelayUpstream = {
 *   baseURL: "https://api.anthropic.com/v1",
 *   apiKey: "sk-ant-…",
 *   protocol: "anthropic-messages",
 *   model: "claude-sonnet-4-5",
 * };
 * ```
 */
export interface RelayUpstream {
  /** E.g. `https://api.openai.com/v1`. Never chosen by the caller. */
  baseURL: string;
  /** The provider key; absent or `""` for a server that needs none. Never echoed to callers. */
  apiKey?: string;
  /** Default `"openai-chat"`. The relay translates requests and streams either way. */
  protocol?: ProtocolName;
  /** Replaces the caller's `model` for this upstream (needed when fallbacks use other providers). */
  model?: string;
}

/**
 * Cross-origin access for browsers. `true` allows every origin; a string or list allows those.
 *
 * @example
 * ```ts
 * const cors: RelayCors = { origin: ["https://app.example.com"] };
 * ```
 */
export type RelayCors = boolean | { origin: string | string[] };

/**
 * Options of {@linkcode createRelay}.
 *
 * @example
 * ```ts
 * const options: RelayOptions = {
 *   upstreams: [{ baseURL: "https://api.openai.com/v1", apiKey: "sk-…", protocol: "openai-chat" }],
 *   keys: ["relay-key-1"],
 *   keepAliveMs: 10_000,
 * };
 * ```
 */
export interface RelayOptions {
  /** First = primary, the rest = fallbacks. Empty or absent: the built-in demo upstream. */
  upstreams?: RelayUpstream[];
  /** Accepted client keys (`Authorization: Bearer <key>`). Absent or empty: no auth. */
  keys?: string[];
  /**
   * SSE keep-alive comment interval during silences once the answer flows. Default 15 000.
   * Before the answer begins the relay writes every 400 ms (and commits the status after at
   * most 1 s), or every `keepAliveMs` if that is shorter.
   */
  keepAliveMs?: number;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Default `false`. */
  cors?: RelayCors;
  /** The `fetch` used to call upstreams (tests). Default `globalThis.fetch` at call time. */
  fetch?: typeof fetch;
  /** Retries per upstream after its first attempt (the client's `maxRetries`). */
  maxRetries?: number;
  /** Backoff between attempts (the client's `retry`). */
  retry?: RetryOptions;
  /** Time limits per attempt and per call (the client's `timeouts`). */
  timeouts?: Timeouts;
  /** Pacing and hooks of the built-in demo upstream (used only when `upstreams` is empty). */
  demo?: DemoUpstreamOptions;
  /**
   * The Durable Object namespace of class `RelayStream` (the Worker's `STREAMS` binding). With
   * it, a streaming request with `x-stopstream-resumable: true` becomes a resumable stream.
   */
  streams?: RelayStreamNamespace;
  /** How long a resumable stream is kept after it ends, in ms. Default 600 000 (10 minutes). */
  resumeTtlMs?: number;
  /**
   * Largest number of bytes a resumable stream stores, and that an answer the relay holds whole
   * (`stream: false`) may take as the upstream sends it, per attempt (past it: `502`
   * `answer_too_large`).
   * Default 8 MiB.
   */
  maxStreamBytes?: number;
  /**
   * Most readers a resumable stream serves at once (the creating request's included); one more
   * gets a 429 (`code: "too_many_readers"`). Default 16.
   */
  maxStreamReaders?: number;
  /**
   * An upstream whose calls failed this many times in a row (with a retryable error, within
   * 30 s) is skipped for `cooldownMs`: calls go straight to the next upstream. Default 3; 0
   * turns cooldown off.
   */
  cooldownFailures?: number;
  /** How long a failing upstream is skipped, in ms; then one call probes it. Default 30 000. */
  cooldownMs?: number;
  /**
   * The retry budget every call of this relay draws from (retries, resumes, continuations), so
   * that during an outage retries stay a fraction of the traffic. Default: one
   * `createRetryBudget()` per relay (per isolate on Workers); `false` for none.
   */
  retryBudget?: RetryBudget | false;
}

/**
 * An upstream after validation: the protocol is always set, an empty key is no key.
 *
 * @example
 * ```ts
 * const upstream: ResolvedUpstream = { baseURL: "https://api.openai.com/v1", apiKey: undefined, protocol: "openai-chat", model: undefined };
 * ```
 */
export interface ResolvedUpstream {
  baseURL: string;
  apiKey: string | undefined;
  protocol: ProtocolName;
  model: string | undefined;
}

/**
 * Options after validation and defaults.
 *
 * @example
 * ```ts
 * const config: ResolvedRelayOptions = resolveRelayOptions({ keys: ["k1"] });
 * ```
 */
export interface ResolvedRelayOptions {
  upstreams: ResolvedUpstream[];
  keys: string[];
  keepAliveMs: number;
  maxBodyBytes: number;
  cors: RelayCors;
  fetch: typeof fetch | undefined;
  maxRetries: number | undefined;
  retry: RetryOptions | undefined;
  timeouts: Timeouts | undefined;
  demo: DemoUpstreamOptions;
  streams: RelayStreamNamespace | undefined;
  resumeTtlMs: number;
  maxStreamBytes: number;
  maxStreamReaders: number;
  cooldownFailures: number;
  cooldownMs: number;
  retryBudget: RetryBudget | undefined;
}

/**
 * Validate relay options and fill in the defaults.
 *
 * @throws {TypeError} on an upstream without a valid `baseURL`, an unknown protocol or a bad key.
 * @throws {TypeError} on `streams` that is not a Durable Object namespace, or a
 * `retryBudget` that is neither a budget nor `false`.
 * @throws {RangeError} on a non-positive `keepAliveMs`, `maxBodyBytes`, `resumeTtlMs`,
 * `maxStreamBytes` or `cooldownMs`, a `cooldownFailures` that is not a whole number ≥ 0, a
 * `maxStreamReaders` that is not one ≥ 1.
 * @throws {TypeError|RangeError} on `maxRetries`, `retry` or `timeouts` that `streamChat` refuses.
 * @example
 * ```ts
 * resolveRelayOptions({}).keepAliveMs; // 15000
 * ```
 */
export function resolveRelayOptions(options: RelayOptions): ResolvedRelayOptions {
  const upstreams = resolveUpstreams(options.upstreams ?? []);
  checkCallOptions(options);
  const keys = options.keys ?? [];
  for (const key of keys) {
    if (typeof key !== "string" || key.length === 0) {
      throw new TypeError("createRelay: keys must be non-empty strings");
    }
  }
  return {
    upstreams,
    keys,
    keepAliveMs: positive("keepAliveMs", options.keepAliveMs, 15_000, MAX_TIMER_MS),
    maxBodyBytes: positive("maxBodyBytes", options.maxBodyBytes, 1024 * 1024),
    cors: options.cors ?? false,
    fetch: options.fetch,
    maxRetries: options.maxRetries,
    retry: options.retry,
    timeouts: options.timeouts,
    demo: options.demo ?? {},
    streams: streamsOf(options.streams),
    resumeTtlMs: positive("resumeTtlMs", options.resumeTtlMs, 10 * 60_000),
    maxStreamBytes: positive("maxStreamBytes", options.maxStreamBytes, 8 * 1024 * 1024),
    maxStreamReaders: count("maxStreamReaders", options.maxStreamReaders, MAX_READERS, 1),
    cooldownFailures: count("cooldownFailures", options.cooldownFailures, 3),
    cooldownMs: positive("cooldownMs", options.cooldownMs, 30_000),
    retryBudget: budgetOf(options.retryBudget),
  };
}

/**
 * `maxRetries`, `retry` and `timeouts` go into every call as they are: checked here, once, by
 * the client's own rules (a call that is only made sends nothing), rather than failing every
 * request with a 500.
 */
function checkCallOptions({ maxRetries, retry, timeouts }: RelayOptions): void {
  try {
    streamChat({ baseURL: "https://upstream.invalid/v1", body: {}, maxRetries, retry, timeouts });
  } catch (error) {
    if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
    const Type = error instanceof RangeError ? RangeError : TypeError;
    throw new Type(`createRelay: ${error.message.replace(/^stopstream: /, "")}`, { cause: error });
  }
}

function streamsOf(streams: unknown): RelayStreamNamespace | undefined {
  if (streams === undefined) return undefined;
  if (!isStreamNamespace(streams)) {
    throw new TypeError(
      "createRelay: streams must be a Durable Object namespace (the STREAMS binding of class " +
        "RelayStream)",
    );
  }
  return streams;
}

function positive(name: string, value: number | undefined, fallback: number, max = MAX): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0) || !(value <= max)) {
    throw new RangeError(
      `createRelay: ${name} must be a positive number up to ${max}, got ${value}`,
    );
  }
  return value;
}

function count(name: string, value: number | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`createRelay: ${name} must be a whole number ≥ ${min}, got ${value}`);
  }
  return value;
}

function budgetOf(budget: RetryBudget | false | undefined): RetryBudget | undefined {
  if (budget === false) return undefined;
  if (budget === undefined) return createRetryBudget();
  if (!isRetryBudget(budget)) {
    throw new TypeError("createRelay: retryBudget must be made by createRetryBudget(), or false");
  }
  return budget;
}
