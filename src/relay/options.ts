import { CALL_LIMITS } from "../client/internal.ts";
import type { RetryOptions, Timeouts } from "../core/chat_options.ts";
import { MAX_TIMER_MS } from "../core/constants.ts";
import { checkOptions, type OptionTable, type Rule, type Voice } from "../core/option_keys.ts";
import { createRetryBudget, isRetryBudget, type RetryBudget } from "../core/retry_budget.ts";
import { PARTIAL_POLICIES } from "./on_partial.ts";
import { isRelayNamespace, type RelayNamespace } from "./durable.ts";
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
  /**
   * Time limits per attempt and per call (the client's `timeouts`), with the relay's defaults:
   * `headersMs` 10 000, `firstEventMs` 60 000, `idleMs` 60 000, `totalMs` none.
   */
  timeouts?: Timeouts;
  /** `RelayStream`'s Durable Object namespace; enables resumable streams. Default none. */
  streams?: RelayStreamNamespace;
  /** How long a resumable stream is kept after it ends, in ms. Default 600 000 (10 minutes). */
  resumeTtlMs?: number;
  /**
   * How long a resumable stream still running may have no reader before it is stopped (its
   * upstream call cancelled), in ms. Default 120 000.
   */
  resumeUnreadMs?: number;
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
  /**
   * A streaming answer cut mid-way: `"error"` ends it with an error event (default), `"continue"`
   * asks the upstream for the rest (the client's `onPartial: "continue"`); the request header
   * `x-stopstream-on-partial` wins.
   */
  onPartial?: "error" | "continue";
  /**
   * `RelayHealth`'s Durable Object namespace: cooldowns shared by every isolate. Default none
   * (each isolate keeps its own).
   */
  health?: RelayNamespace;
  /** `RelayLimits`' Durable Object namespace, where `keyRpm` and `keyConcurrency` are counted. */
  limits?: RelayNamespace;
  /** Requests per minute per relay key (per client address without keys). Default 0: none. */
  keyRpm?: number;
  /** Calls in flight at once per relay key (per address without keys). Default 0: none. */
  keyConcurrency?: number;
  /** One JSON line per call on `console.log` (docs/relay.md, "The call log"). Default `true`. */
  logCalls?: boolean;
}

/** The options without a default. */
type Unset =
  | "fetch"
  | "maxRetries"
  | "retry"
  | "streams"
  | "models"
  | "health"
  | "limits";

export type ResolvedRelayOptions =
  & Required<Omit<RelayOptions, Unset | "upstreams" | "retryBudget" | "timeouts">>
  & { [K in Unset]: RelayOptions[K] | undefined }
  & {
    upstreams: ResolvedUpstream[];
    retryBudget: RetryBudget | undefined;
    timeouts: Required<Timeouts>;
  };

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

/** One of the client's `ms` rules, with another default. */
const withDefault = ([test, words]: Rule, fallback: number): Rule => [
  test,
  words,
  fallback,
  RangeError,
];
/**
 * The client's rules (and messages) for the call's limits, with the relay's defaults: a service's
 * stalls must fail over in seconds, not at the client's 60 s for headers and 600 s for the first
 * event, since a caller waits behind each.
 */
const RELAY_CALL_LIMITS = {
  ...CALL_LIMITS,
  timeouts: {
    ...CALL_LIMITS.timeouts,
    headersMs: withDefault(CALL_LIMITS.timeouts.headersMs, 10_000),
    firstEventMs: withDefault(CALL_LIMITS.timeouts.firstEventMs, 60_000),
    idleMs: withDefault(CALL_LIMITS.timeouts.idleMs, 60_000),
  },
};

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
  resumeUnreadMs: positive(120_000, MAX_TIMER_MS),
  maxStreamBytes: positive(8 * 1024 * 1024),
  maxStreamReaders: wholeNumber(MAX_READERS, 1),
  cooldownFailures: wholeNumber(3, 0),
  cooldownMs: positive(30_000),
  retryBudget: [
    (value) => value === undefined || value === false || isRetryBudget(value),
    "made by createRetryBudget(), or false",
  ],
  onPartial: [
    (value) => (PARTIAL_POLICIES as readonly unknown[]).includes(value),
    `one of ${PARTIAL_POLICIES.join(", ")}`,
    "error",
  ],
  health: [
    (value) => value === undefined || isRelayNamespace(value),
    "a Durable Object namespace (the HEALTH binding of class RelayHealth)",
  ],
  limits: [
    (value) => value === undefined || isRelayNamespace(value),
    "a Durable Object namespace (the LIMITS binding of class RelayLimits)",
  ],
  keyRpm: wholeNumber(0, 0),
  keyConcurrency: wholeNumber(0, 0),
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
  const limits = checkOptions<{ timeouts: Required<Timeouts> }>(
    { maxRetries, retry, timeouts },
    RELAY_CALL_LIMITS,
    "",
    CALL,
  );
  const upstreams = resolveUpstreams(options.upstreams!);
  if ((checked.keyRpm > 0 || checked.keyConcurrency > 0) && checked.limits === undefined) {
    throw new TypeError(
      "createRelay: keyRpm and keyConcurrency need `limits` (the LIMITS Durable Object binding)",
    );
  }
  const budget = options.retryBudget;
  return {
    ...checked,
    timeouts: limits.timeouts,
    upstreams,
    retryBudget: budget === false ? undefined : budget ?? createRetryBudget(),
  };
}

function isOrigins(value: unknown): boolean {
  const origin = (value as { origin?: unknown } | null)?.origin;
  return typeof origin === "string" ||
    (Array.isArray(origin) && origin.every((item) => typeof item === "string"));
}
