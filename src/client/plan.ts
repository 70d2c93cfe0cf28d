import { checkOptions, mustBe, type OptionTable, type Rule } from "../core/option_keys.ts";
import { PROTOCOLS } from "../protocols/registry.ts";
import { joinURL } from "../protocols/request.ts";
import { isRetryBudget, type RetryBudget } from "../core/retry_budget.ts";
import type { BackoffOptions } from "./retry_policy.ts";
import type {
  PartialPolicy,
  RetryOptions,
  StreamChatOptions,
  Timeouts,
} from "../core/chat_options.ts";
import type { ResultTarget } from "../core/chat_result.ts";
import type { Protocol, ProtocolRequest } from "../protocols/protocol.ts";
import type { AttemptTimeouts } from "./watchdog.ts";

/** One upstream to try, everything resolved. */
export interface CallTarget {
  info: ResultTarget;
  protocol: Protocol;
  body: Record<string, unknown>;
  request: ProtocolRequest;
  rebuild(body: Record<string, unknown>): ProtocolRequest;
  fetch: typeof fetch;
  maxRetries: number;
  backoff: BackoffOptions;
  timeouts: AttemptTimeouts;
}

/** Everything one call needs, validated. */
export interface CallPlan {
  targets: CallTarget[];
  signal: AbortSignal | undefined;
  /** Epoch ms when `totalMs` runs out, or `Infinity`; set at start. */
  deadline: number;
  totalMs: number;
  maxEventBytes: number;
  onPartial: PartialPolicy;
  budget: RetryBudget | undefined;
}

const POLICIES: readonly unknown[] = ["throw", "return", "continue", "retry"];
const CALL_ONLY = ["signal", "fallbacks", "onPartial", "retryBudget"] as const;

/** `Infinity`: no limit. */
const ms = (min: number, fallback: number): Rule => [
  (value) => typeof value === "number" && value >= min,
  `a number ≥ ${min} (ms)`,
  fallback,
  RangeError,
];
const integer = (min: number, fallback: number): Rule => [
  (value) => Number.isInteger(value) && (value as number) >= min,
  `an integer ≥ ${min}`,
  fallback,
  RangeError,
];
const optional = (test: (value: unknown) => boolean, words: string): Rule => [
  (value) => value === undefined || test(value),
  words,
];

/** Each attempt's limits: also what the relay takes for every call it makes. */
export const CALL_LIMITS = {
  maxRetries: integer(0, 2),
  retry: {
    initialDelayMs: ms(0, 500),
    maxDelayMs: ms(0, 8_000),
    maxRetryAfterMs: ms(0, 60_000),
  } satisfies Record<keyof RetryOptions, Rule>,
  timeouts: {
    headersMs: ms(1, 60_000),
    firstEventMs: ms(1, 600_000),
    idleMs: ms(1, 180_000),
    totalMs: ms(1, Infinity),
  } satisfies Record<keyof Timeouts, Rule>,
} as const;

/** `satisfies` makes a new option in `chat_options.ts` a compile error here. */
const OPTIONS = {
  baseURL: [(value) => typeof value === "string" && isURL(value), "an absolute URL"],
  apiKey: optional((value) => typeof value === "string", "a string"),
  headers: [() => true, ""],
  body: [
    (value) => typeof value === "object" && value !== null && !Array.isArray(value),
    "the provider's request object",
  ],
  protocol: [
    (value) => Object.hasOwn(PROTOCOLS, value as string),
    `one of ${Object.keys(PROTOCOLS).join(", ")}`,
    "openai-chat",
  ],
  signal: optional(
    (value) => typeof value === "object" && value !== null && "aborted" in value,
    "an AbortSignal",
  ),
  ...CALL_LIMITS,
  fetch: optional((value) => typeof value === "function", "a function"),
  maxEventBytes: integer(1, 16 * 1024 * 1024),
  fallbacks: [Array.isArray, "an array", []],
  onPartial: [(value) => POLICIES.includes(value), `one of ${POLICIES.join(", ")}`, "throw"],
  retryBudget: optional(isRetryBudget, "an object made by createRetryBudget()"),
} as const satisfies Record<keyof StreamChatOptions, Rule | OptionTable>;

interface Checked extends StreamChatOptions {
  maxRetries: number;
  retry: BackoffOptions;
  timeouts: Record<keyof Timeouts, number>;
  maxEventBytes: number;
  fallbacks: Array<Partial<StreamChatOptions>>;
  onPartial: PartialPolicy;
  retryBudget: RetryBudget | undefined;
}

/** The options checked and resolved: one target per upstream, in the order they are tried. */
export function planCall(options: StreamChatOptions): CallPlan {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`stopstream: streamChat expects an options object, got ${options}`);
  }
  const call = check(options, "");
  const targets = [resolveTarget(call, 0)];
  call.fallbacks.forEach((entry, i) =>
    targets.push(resolveTarget(check(mergeFallback(options, entry, i), `fallbacks[${i}].`), i + 1))
  );
  return {
    targets,
    signal: call.signal,
    deadline: Infinity,
    totalMs: call.timeouts.totalMs,
    maxEventBytes: call.maxEventBytes,
    onPartial: call.onPartial,
    budget: call.retryBudget,
  };
}

function check(options: StreamChatOptions, where: string): Checked {
  const checked = checkOptions<Checked>(options, OPTIONS, where);
  if (checked.body.stream === false) {
    throw new TypeError("stopstream: `body.stream` is false, but streamChat always streams");
  }
  return checked;
}

function resolveTarget(options: Checked, index: number): CallTarget {
  const { baseURL, apiKey, body } = options;
  const fetchFn = options.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== "function") {
    throw new TypeError("stopstream: no `fetch` given and none in globalThis");
  }
  const protocol = PROTOCOLS[options.protocol!];
  const headers = new Headers(options.headers);
  const build = (requestBody: Record<string, unknown>) =>
    protocol.buildRequest({ baseURL, apiKey, headers, body: requestBody });
  const target: CallTarget = {
    info: { index, baseURL, protocol: protocol.name },
    protocol,
    body,
    request: build(body),
    rebuild: build,
    fetch: fetchFn,
    maxRetries: options.maxRetries,
    backoff: options.retry,
    timeouts: options.timeouts,
  };
  if (typeof body.model === "string") target.info.model = body.model;
  return target;
}

/**
 * Key and headers are inherited only on exactly the primary's `baseURL`: one origin can front
 * several providers (a gateway's `…/openai`, `…/anthropic`), and a key must not cross over.
 */
function mergeFallback(
  base: StreamChatOptions,
  entry: Partial<StreamChatOptions>,
  i: number,
): StreamChatOptions {
  if (entry === null || typeof entry !== "object") {
    throw mustBe(`fallbacks[${i}]`, "an object", entry);
  }
  for (const key of CALL_ONLY) {
    if (entry[key] !== undefined) {
      throw new TypeError(
        `stopstream: \`fallbacks[${i}].${key}\` is not allowed; set it on the call`,
      );
    }
  }
  const baseURL = entry.baseURL ?? base.baseURL;
  const sameTarget = typeof baseURL === "string" &&
    joinURL(baseURL, "") === joinURL(base.baseURL, "");
  const merged: StreamChatOptions = {
    ...base,
    ...entry,
    baseURL,
    body: { ...base.body, ...entry.body },
  };
  delete merged.fallbacks;
  if (!("apiKey" in entry) && !sameTarget) delete merged.apiKey;
  if (!("headers" in entry) && !sameTarget) delete merged.headers;
  return merged;
}

function isURL(url: string): boolean {
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}
