import type { DemoUpstreamOptions } from "../apps/demo/upstream.ts";
import { createRetryBudget, isRetryBudget, type RetryBudget } from "../core/retry_budget.ts";

const MAX = Number.MAX_VALUE;
/** The longest timer delay (about 24.8 days); a longer one fires at once in Node. */
const MAX_TIMER_MS = 2_147_483_647;
import { streamChat } from "../client/stream_chat.ts";
import type { ProtocolName, RetryOptions, Timeouts } from "../core/chat_options.ts";
import { isStreamNamespace, MAX_READERS, type RelayStreamNamespace } from "./streams/wire.ts";
import { resolveUpstreams } from "./upstreams.ts";

export { isHttpURL, PROTOCOLS } from "./upstreams.ts";

/**
 * One model provider the relay may call; the first is the primary, the rest fallbacks in order.
 *
 * @example
 * ```ts
 * const upstream: RelayUpstream = {
 *   baseURL: "https://api.anthropic.com/v1", apiKey: "sk-ant-…", protocol: "anthropic-messages",
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
  /** Keep-alive interval in ms once the answer flows (400 ms before it). Default 15 000. */
  keepAliveMs?: number;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Cross-origin access for browsers. Default `false`. */
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
  /** `RelayStream`'s Durable Object namespace; enables resumable streams. Default none. */
  streams?: RelayStreamNamespace;
  /** How long a resumable stream is kept after it ends, in ms. Default 600 000 (10 minutes). */
  resumeTtlMs?: number;
  /** Most bytes a resumable stream or `stream: false` answer may hold (else 502). Default 8 MiB. */
  maxStreamBytes?: number;
  /** Most readers a resumable stream serves at once; one more gets a 429. Default 16. */
  maxStreamReaders?: number;
  /** Retryable failures in a row (within 30 s) before an upstream is skipped. Default 3; 0: off. */
  cooldownFailures?: number;
  /** How long a failing upstream is skipped, in ms; then one call probes it. Default 30 000. */
  cooldownMs?: number;
  /** Budget every call's retries draw from. Default: one per relay; `false`: none. */
  retryBudget?: RetryBudget | false;
}

/** The protocol is always set; an empty key is no key. */
export interface ResolvedUpstream {
  baseURL: string;
  apiKey: string | undefined;
  protocol: ProtocolName;
  model: string | undefined;
}

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

/** Checked once by the client's own rules (making a call sends nothing), not a 500 per request. */
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
