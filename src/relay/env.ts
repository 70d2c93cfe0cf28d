import { MAX_TIMER_MS } from "../core/constants.ts";
import type { ProtocolName, Timeouts } from "../core/chat_options.ts";
import type { RelayOptions } from "./options.ts";
import { isHttpURL, PROTOCOLS, type RelayUpstream } from "./upstreams.ts";
import { isRelayNamespace } from "./durable.ts";

const TIMEOUT_BINDINGS = [
  ["HEADERS_TIMEOUT_MS", "headersMs"],
  ["FIRST_EVENT_TIMEOUT_MS", "firstEventMs"],
  ["IDLE_TIMEOUT_MS", "idleMs"],
] as const;

/** `[binding, option, unit, min, max]`; min and max default to 1 and no bound. */
const WHOLE_NUMBERS = [
  // The longest delay a timer takes: a longer keep-alive would write every millisecond in Node.
  ["KEEPALIVE_MS", "keepAliveMs", "milliseconds", 1, MAX_TIMER_MS],
  ["RESUME_TTL_MS", "resumeTtlMs", "milliseconds"],
  ["RESUME_UNREAD_MS", "resumeUnreadMs", "milliseconds", 1, MAX_TIMER_MS],
  ["MAX_STREAM_BYTES", "maxStreamBytes", "bytes"],
  ["MAX_STREAM_READERS", "maxStreamReaders", "readers"],
  ["COOLDOWN_FAILURES", "cooldownFailures", "calls; 0 turns cooldown off", 0],
  ["COOLDOWN_MS", "cooldownMs", "milliseconds"],
  ["KEY_RPM", "keyRpm", "requests per minute; 0 turns it off", 0],
  ["KEY_CONCURRENCY", "keyConcurrency", "calls; 0 turns it off", 0],
] as const;

/**
 * The bindings the relay Worker reads, all optional.
 *
 * @example
 * ```ts
 * const env: RelayEnv = { UPSTREAM_BASE_URL: "https://api.openai.com/v1", UPSTREAM_API_KEY: "sk-…" };
 * ```
 */
export interface RelayEnv {
  /** E.g. `https://api.openai.com/v1`; unset or empty: no upstream (the options have none). */
  UPSTREAM_BASE_URL?: string;
  /** `openai-chat` (default), `anthropic-messages` or `openai-responses`. */
  UPSTREAM_PROTOCOL?: string;
  /** Replaces the caller's `model` (optional). */
  UPSTREAM_MODEL?: string;
  /** Secret. */
  UPSTREAM_API_KEY?: string;
  /** JSON: `[{"baseURL", "protocol"?, "model"?, "apiKeySecret"?}]`, naming each key's secret. */
  FALLBACKS?: string;
  /** Secret: comma-separated client keys. */
  RELAY_KEYS?: string;
  /** Keep-alive interval in ms once the answer flows (default 15 000; every 400 ms before it). */
  KEEPALIVE_MS?: string;
  /** Durable Object binding of class `RelayStream`, for `x-stopstream-resumable: true` requests. */
  STREAMS?: unknown;
  /** How long a resumable stream is kept after it ends, in ms (default 600 000). */
  RESUME_TTL_MS?: string;
  /** How long a running resumable stream may have no reader before it is stopped (default 120 000). */
  RESUME_UNREAD_MS?: string;
  /** The most bytes a resumable stream stores (default 8 MiB). */
  MAX_STREAM_BYTES?: string;
  /** The most readers a resumable stream serves at once (default 16). */
  MAX_STREAM_READERS?: string;
  /** Request start to an upstream's response headers, in ms (default 10 000). */
  HEADERS_TIMEOUT_MS?: string;
  /** An upstream's response headers to its first data event, in ms (default 60 000). */
  FIRST_EVENT_TIMEOUT_MS?: string;
  /** Between an upstream's data events, in ms (default 60 000). */
  IDLE_TIMEOUT_MS?: string;
  /** Failed calls in a row (in 30 s) that make an upstream skipped (default 3; 0 turns it off). */
  COOLDOWN_FAILURES?: string;
  /** How long a failing upstream is skipped, in ms (default 30 000); then one call probes it. */
  COOLDOWN_MS?: string;
  /** Durable Object binding of class `RelayHealth`: cooldowns shared by every isolate. */
  HEALTH?: unknown;
  /** Durable Object binding of class `RelayLimits`, where the per-key limits are counted. */
  LIMITS?: unknown;
  /** Requests per minute per relay key (default: no limit); needs `LIMITS`. */
  KEY_RPM?: string;
  /** Calls in flight at once per relay key (default: no limit); needs `LIMITS`. */
  KEY_CONCURRENCY?: string;
  /** `false` turns off the log line of each call (default `true`). */
  LOG_CALLS?: string;
  /** Secrets named by `FALLBACKS` entries. */
  [binding: string]: unknown;
}

/**
 * Build {@linkcode RelayOptions} from Worker bindings.
 *
 * @throws {TypeError} naming a malformed binding or a missing secret (never a binding's value).
 * @example
 * ```ts
 * const options = relayOptionsFromEnv({ RELAY_KEYS: "a,b" });
 * options.keys; // ["a", "b"]
 * ```
 */
export function relayOptionsFromEnv(env: RelayEnv): RelayOptions {
  const keys = typeof env.RELAY_KEYS === "string"
    ? env.RELAY_KEYS.split(",").map((k) => k.trim()).filter((k) => k !== "")
    : [];
  // Fail closed: an empty RELAY_KEYS must not open the relay to everyone.
  if (typeof env.RELAY_KEYS === "string" && keys.length === 0) {
    throw new TypeError(
      "RELAY_KEYS is set but holds no key; set comma-separated keys or remove it",
    );
  }
  const common: RelayOptions = { keys };
  for (const [binding, option, unit, min, max] of WHOLE_NUMBERS) {
    const value = wholeNumber(env, binding, unit, min, max);
    if (value !== undefined) common[option] = value;
  }
  if (isRelayNamespace(env.STREAMS)) common.streams = env.STREAMS;
  const timeouts: Timeouts = {};
  for (const [binding, name] of TIMEOUT_BINDINGS) {
    const ms = wholeNumber(env, binding, "milliseconds");
    if (ms !== undefined) timeouts[name] = ms;
  }
  if (Object.keys(timeouts).length > 0) common.timeouts = timeouts;
  if (isRelayNamespace(env.HEALTH)) common.health = env.HEALTH;
  if (isRelayNamespace(env.LIMITS)) common.limits = env.LIMITS;
  if ((common.keyRpm || common.keyConcurrency) && common.limits === undefined) {
    throw new TypeError(
      "KEY_RPM and KEY_CONCURRENCY need a LIMITS Durable Object binding (class RelayLimits)",
    );
  }
  const logCalls = text(env.LOG_CALLS)?.toLowerCase();
  if (logCalls !== undefined) {
    if (logCalls !== "true" && logCalls !== "false") {
      throw new TypeError("LOG_CALLS must be true or false");
    }
    common.logCalls = logCalls === "true";
  }
  const baseURL = text(env.UPSTREAM_BASE_URL);
  if (baseURL === undefined) {
    if (text(env.FALLBACKS) !== undefined) {
      throw new TypeError("FALLBACKS is set but UPSTREAM_BASE_URL is not; set the primary first");
    }
    return common;
  }
  const primary: RelayUpstream = {
    baseURL: urlOf(baseURL, "UPSTREAM_BASE_URL"),
    protocol: protocolOf(env.UPSTREAM_PROTOCOL, "UPSTREAM_PROTOCOL"),
  };
  const apiKey = text(env.UPSTREAM_API_KEY);
  if (apiKey !== undefined) primary.apiKey = apiKey;
  const model = text(env.UPSTREAM_MODEL);
  if (model !== undefined) primary.model = model;
  return { ...common, upstreams: [primary, ...parseFallbacks(env)] };
}

// Messages never hold a binding's value (it may be a key): a misconfigured Worker serves them.

function parseFallbacks(env: RelayEnv): RelayUpstream[] {
  const raw = text(env.FALLBACKS);
  if (raw === undefined) return [];
  let entries: unknown;
  try {
    entries = JSON.parse(raw);
  } catch {
    throw new TypeError("FALLBACKS is not valid JSON; it must be a JSON array of objects");
  }
  if (!Array.isArray(entries)) throw new TypeError("FALLBACKS must be a JSON array of objects");
  return entries.map((entry: unknown, i): RelayUpstream => {
    const where = `FALLBACKS[${i}]`;
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      throw new TypeError(`${where} must be an object`);
    }
    const { baseURL, protocol, model, apiKey, apiKeySecret } = entry as Record<string, unknown>;
    if (apiKey !== undefined) {
      throw new TypeError(
        `${where} must not contain a key; put it in a secret and name it in "apiKeySecret"`,
      );
    }
    const upstream: RelayUpstream = {
      baseURL: urlOf(baseURL, `${where}.baseURL`),
      protocol: protocolOf(protocol, `${where}.protocol`),
    };
    if (model !== undefined) {
      if (typeof model !== "string") throw new TypeError(`${where}.model must be a string`);
      upstream.model = model;
    }
    if (apiKeySecret !== undefined) {
      const key = typeof apiKeySecret === "string" && Object.hasOwn(env, apiKeySecret)
        ? text(env[apiKeySecret])
        : undefined;
      if (key === undefined) {
        throw new TypeError(
          `${where}.apiKeySecret must name a secret binding that is set (the secret's name, not the key)`,
        );
      }
      upstream.apiKey = key;
    }
    return upstream;
  });
}

function urlOf(value: unknown, name: string): string {
  if (typeof value !== "string" || !isHttpURL(value)) {
    throw new TypeError(`${name} must be an absolute http(s) URL`);
  }
  return value;
}

function wholeNumber(
  env: RelayEnv,
  name: string,
  unit: string,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const value = text(env[name]);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!(Number.isSafeInteger(number) && number >= min && number <= max)) {
    const kind = min === 0
      ? "a whole number ≥ 0"
      : max < Number.MAX_SAFE_INTEGER
      ? `a positive integer up to ${max}`
      : "a positive integer";
    throw new TypeError(`${name} must be ${kind} (${unit})`);
  }
  return number;
}

function protocolOf(value: unknown, name: string): ProtocolName {
  if (value === undefined || value === "") return "openai-chat";
  if (PROTOCOLS.includes(value as ProtocolName)) return value as ProtocolName;
  throw new TypeError(`${name} must be openai-chat, anthropic-messages or openai-responses`);
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}
