import { CALL_LIMITS } from "../client/internal.ts";
import type { RetryOptions, Timeouts } from "../core/chat_options.ts";
import { MAX_TIMER_MS } from "../core/constants.ts";
import { checkOptions, type OptionTable, type Rule, type Voice } from "../core/option_keys.ts";
import { createRetryBudget, isRetryBudget, type RetryBudget } from "../core/retry_budget.ts";
import { isStreamNamespace, MAX_READERS, type RelayStreamNamespace } from "./streams/wire.ts";
import { type RelayUpstream, type ResolvedUpstream, resolveUpstreams } from "./upstreams.ts";

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
 * How the relay calls an upstream: `fetch`'s signature, and third, which of the caller request's
 * upstream requests this is (`attempt`, from 1), for an upstream served in-process.
 *
 * @example
 * ```ts
 * const fetchUpstream: RelayFetch = (input, init, call) => fetch(input, init);
 * ```
 */
export type RelayFetch = (
  input: RequestInfo | URL,
  init?: RequestInit,
  call?: { attempt: number },
) => Promise<Response>;

/**
 * Options of {@linkcode createRelay}.
 *
 * @example
 * ```ts
 * const options: RelayOptions = {
 *   upstreams: [{ baseURL: "https://api.openai.com/v1", apiKey: "sk-…", protocol: "openai-chat" }],
 *   keys: ["relay-key-1"],
 * };
 * ```
 */
export interface RelayOptions {
  /** First = primary, the rest = fallbacks; at least one (`createRelay` throws without). */
  upstreams?: RelayUpstream[];
  /** Accepted client keys (`Authorization: Bearer <key>`). Absent or empty: no auth. */
  keys?: string[];
  /** Keep-alive interval in ms once the answer flows (400 ms before it). Default 15 000. */
  keepAliveMs?: number;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Cross-origin access for browsers. Default `false`. */
  cors?: RelayCors;
  /** Calls the upstreams (tests, an in-process upstream). Default `globalThis.fetch`. */
  fetch?: RelayFetch;
  /** Caller headers passed on to upstreams, besides `anthropic-beta` and `openai-beta`. */
  forwardHeaders?: string[];
  /**
   * What `GET /v1/models` lists. Default: each upstream's `model`, and for an upstream without
   * one (it serves the model the caller names) the models it lists itself, asked on each request.
   */
  models?: string[];
  /** Retries per upstream after its first attempt (the client's `maxRetries`). */
  maxRetries?: number;
  /** Backoff between attempts (the client's `retry`). */
  retry?: RetryOptions;
  /** Time limits per attempt and per call (the client's `timeouts`). */
  timeouts?: Timeouts;
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
  /** One JSON line per call on `console.log` (docs/relay.md, "The call log"). Default `true`. */
  logCalls?: boolean;
}

/** The options without a default. */
type Unset = "fetch" | "maxRetries" | "retry" | "timeouts" | "streams" | "models";

export type ResolvedRelayOptions =
  & Required<Omit<RelayOptions, Unset | "upstreams" | "retryBudget">>
  & { [K in Unset]: RelayOptions[K] | undefined }
  & { upstreams: ResolvedUpstream[]; retryBudget: RetryBudget | undefined };

const RELAY: Voice = { prefix: "createRelay", owner: "createRelay", ticks: false };
/** maxRetries, retry and timeouts are the client's, checked by its own rules. */
const CALL: Voice = { prefix: "createRelay", owner: "streamChat", ticks: true };
/** Header names a caller may not have passed on: the upstream's own credentials and framing. */
const NEVER_FORWARDED = /^(?:authorization|x-api-key|cookie|host|content-length|content-type)$/i;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const positive = (fallback: number, max = Number.MAX_VALUE): Rule => [
  (value) => typeof value === "number" && value > 0 && value <= max,
  `a positive number up to ${max}`,
  fallback,
  RangeError,
];
const wholeNumber = (fallback: number, min: number): Rule => [
  (value) => Number.isInteger(value) && (value as number) >= min,
  `a whole number ≥ ${min}`,
  fallback,
  RangeError,
];
const listOf = (test: (item: unknown) => boolean, words: string, fallback?: unknown[]): Rule => [
  (value) =>
    (fallback !== undefined && value === undefined) ||
    (Array.isArray(value) && value.every(test)),
  words,
  fallback,
];
const anything: Rule = [() => true, ""];

const OPTIONS = {
  upstreams: [
    (value) => Array.isArray(value) && value.length > 0,
    "a list of at least one upstream",
  ],
  keys: listOf((key) => typeof key === "string" && key.length > 0, "non-empty strings", []),
  keepAliveMs: positive(15_000, MAX_TIMER_MS),
  maxBodyBytes: positive(1024 * 1024),
  cors: [
    (value) => typeof value === "boolean" || isOrigins(value),
    "true, false or { origin: a string or a list of them }",
    false,
  ],
  fetch: [(value) => value === undefined || typeof value === "function", "a function"],
  forwardHeaders: listOf(
    (name) => typeof name === "string" && HEADER_NAME.test(name) && !NEVER_FORWARDED.test(name),
    "header names other than authorization, x-api-key, cookie, host and content-*",
    [],
  ),
  models: [
    (value) =>
      value === undefined ||
      (Array.isArray(value) && value.every((id) => typeof id === "string" && id !== "")),
    "a list of non-empty strings",
  ],
  maxRetries: anything,
  retry: anything,
  timeouts: anything,
  streams: [
    (value) => value === undefined || isStreamNamespace(value),
    "a Durable Object namespace (the STREAMS binding of class RelayStream)",
  ],
  resumeTtlMs: positive(10 * 60_000),
  maxStreamBytes: positive(8 * 1024 * 1024),
  maxStreamReaders: wholeNumber(MAX_READERS, 1),
  cooldownFailures: wholeNumber(3, 0),
  cooldownMs: positive(30_000),
  retryBudget: [
    (value) => value === undefined || value === false || isRetryBudget(value),
    "made by createRetryBudget(), or false",
  ],
  logCalls: [(value) => typeof value === "boolean", "true or false", true],
} as const satisfies Record<keyof RelayOptions, Rule | OptionTable>;

/** Checked once, so that a bad option is the caller's error at once, not a 500 per request. */
export function resolveRelayOptions(options: RelayOptions): ResolvedRelayOptions {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`createRelay: expects an options object, got ${options}`);
  }
  const checked = checkOptions<Omit<ResolvedRelayOptions, "upstreams">>(
    options,
    OPTIONS,
    "",
    RELAY,
  );
  const { maxRetries, retry, timeouts } = options;
  checkOptions({ maxRetries, retry, timeouts }, CALL_LIMITS, "", CALL);
  const upstreams = resolveUpstreams(options.upstreams!);
  const budget = options.retryBudget;
  return {
    ...checked,
    upstreams,
    retryBudget: budget === false ? undefined : budget ?? createRetryBudget(),
  };
}

function isOrigins(value: unknown): boolean {
  const origin = (value as { origin?: unknown } | null)?.origin;
  return typeof origin === "string" ||
    (Array.isArray(origin) && origin.every((item) => typeof item === "string"));
}
