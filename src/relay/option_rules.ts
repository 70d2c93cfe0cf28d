// `createRelay`'s options, checked by `streamChat`'s table mechanism with the relay's defaults.

import { CALL_LIMITS } from "../client/internal.ts";
import type { Timeouts } from "../core/chat_options.ts";
import { MAX_TIMER_MS } from "../core/constants.ts";
import { checkOptions, type OptionTable, type Rule, type Voice } from "../core/option_keys.ts";
import { createRetryBudget, isRetryBudget } from "../core/retry_budget.ts";
import { PARTIAL_POLICIES } from "./on_partial.ts";
import { isRelayNamespace } from "./durable.ts";
import type { RelayOptions, ResolvedRelayOptions } from "./options.ts";
import { MAX_READERS, UNREAD_MS } from "./streams/wire.ts";
import { resolveUpstreams } from "./upstreams.ts";

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
  (value) => value === undefined || (Array.isArray(value) && value.every(test)),
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
/** The client's rules for the call's limits, with defaults short enough to fail over in seconds. */
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
  models: listOf((id) => typeof id === "string" && id !== "", "a list of non-empty strings"),
  maxRetries: anything,
  retry: anything,
  timeouts: anything,
  streams: [
    (value) => value === undefined || isRelayNamespace(value),
    "a Durable Object namespace (the STREAMS binding of class RelayStream)",
  ],
  resumeTtlMs: positive(10 * 60_000),
  resumeUnreadMs: positive(UNREAD_MS, MAX_TIMER_MS),
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
