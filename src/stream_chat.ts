/**
 * `streamChat()`: validates the options, resolves the targets, returns a {@linkcode ChatStream}.
 *
 * @module
 */

import { ChatStream } from "./chat_stream.ts";
import { rejectUnknownKeys } from "./option_keys.ts";
import { getProtocol } from "./protocols/registry.ts";
import { joinURL } from "./protocols/request.ts";
import { isRetryBudget } from "./retry_budget.ts";
import type { CallPlan, CallTarget } from "./retry_loop.ts";
import type { PartialPolicy, RetryOptions, StreamChatOptions, Timeouts } from "./types.ts";

const DEFAULTS = {
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
  headersMs: 60_000,
  firstEventMs: 600_000,
  idleMs: 180_000,
  maxEventBytes: 16 * 1024 * 1024,
} as const;

const POLICIES: readonly PartialPolicy[] = ["throw", "return", "continue", "retry"];

/** Every option name; `satisfies` makes a new option in `types.ts` a compile error here. */
const OPTIONS = {
  baseURL: true,
  apiKey: true,
  headers: true,
  body: true,
  protocol: true,
  signal: true,
  maxRetries: true,
  retry: {
    initialDelayMs: true,
    maxDelayMs: true,
    maxRetryAfterMs: true,
  } satisfies Record<keyof RetryOptions, true>,
  timeouts: {
    headersMs: true,
    firstEventMs: true,
    idleMs: true,
    totalMs: true,
  } satisfies Record<keyof Timeouts, true>,
  fetch: true,
  maxEventBytes: true,
  fallbacks: true,
  onPartial: true,
  retryBudget: true,
} as const satisfies Record<keyof StreamChatOptions, unknown>;

/**
 * Streams one chat answer. Nothing is sent until you iterate the returned stream or await its
 * `result`. Transient failures are retried before any content arrives; an abort of `signal`
 * stops everything at once with `InterruptedError`.
 *
 * @example
 * ```ts
 * import { streamChat } from "stopstream";
 *
 * const controller = new AbortController();
 * const stream = streamChat({
 *   baseURL: "https://api.openai.com/v1",
 *   apiKey: "sk-…",
 *   body: { model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello" }] },
 *   signal: controller.signal,
 * });
 * for await (const event of stream) {
 *   if (event.type === "text") console.log(event.text);
 * }
 * ```
 */
export function streamChat(options: StreamChatOptions): ChatStream {
  return new ChatStream(planCall(options));
}

/**
 * @internal What `streamChat` runs, validated and resolved: the relay adjusts a plan's targets
 * (their stream decoders) before it starts one.
 *
 * @example
 * ```ts
 * const stream = new ChatStream(planCall({ baseURL, body }));
 * ```
 */
export function planCall(options: StreamChatOptions): CallPlan {
  if (options === null || typeof options !== "object") {
    throw new TypeError(`stopstream: streamChat expects an options object, got ${options}`);
  }
  rejectUnknownKeys(options, OPTIONS, "");
  const { signal, fallbacks = [], onPartial = "throw" } = options;
  if (signal !== undefined && !(typeof signal === "object" && "aborted" in signal)) {
    throw new TypeError("stopstream: `signal` must be an AbortSignal");
  }
  if (!POLICIES.includes(onPartial)) {
    throw new TypeError(
      `stopstream: \`onPartial\` must be one of ${POLICIES.join(", ")}, got ${onPartial}`,
    );
  }
  if (!Array.isArray(fallbacks)) throw new TypeError("stopstream: `fallbacks` must be an array");
  const budget = options.retryBudget;
  if (budget !== undefined && !isRetryBudget(budget)) {
    throw new TypeError("stopstream: `retryBudget` must be an object made by createRetryBudget()");
  }
  const totalMs = limit("timeouts.totalMs", options.timeouts?.totalMs, Infinity);
  const maxEventBytes = count("maxEventBytes", options.maxEventBytes, DEFAULTS.maxEventBytes, 1);
  const targets = [resolveTarget(options, 0)];
  fallbacks.forEach((entry, i) =>
    targets.push(resolveTarget(mergeFallback(options, entry, i), i + 1))
  );
  return { targets, signal, deadline: Infinity, totalMs, maxEventBytes, onPartial, budget };
}

function resolveTarget(options: StreamChatOptions, index: number): CallTarget {
  const where = index === 0 ? "" : `fallbacks[${index - 1}].`;
  const { baseURL, apiKey, body } = options;
  if (typeof baseURL !== "string" || originOf(baseURL) === undefined) {
    throw new TypeError(`stopstream: \`${where}baseURL\` must be an absolute URL, got ${baseURL}`);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new TypeError(`stopstream: \`${where}body\` must be the provider's request object`);
  }
  if (body.stream === false) {
    throw new TypeError("stopstream: `body.stream` is false, but streamChat always streams");
  }
  if (apiKey !== undefined && typeof apiKey !== "string") {
    throw new TypeError(`stopstream: \`${where}apiKey\` must be a string`);
  }
  const fetchFn = options.fetch ?? globalThis.fetch;
  if (typeof fetchFn !== "function") {
    throw new TypeError("stopstream: no `fetch` given and none in globalThis");
  }
  const protocol = getProtocol(options.protocol ?? "openai-chat");
  const headers = new Headers(options.headers);
  const build = (requestBody: Record<string, unknown>) =>
    protocol.buildRequest({ baseURL, apiKey, headers, body: requestBody });
  const { retry = {}, timeouts = {} } = options;
  const target: CallTarget = {
    info: { index, baseURL, protocol: protocol.name },
    protocol,
    body,
    request: build(body),
    rebuild: build,
    fetch: fetchFn,
    maxRetries: count(`${where}maxRetries`, options.maxRetries, DEFAULTS.maxRetries, 0),
    backoff: {
      initialDelayMs: limit(
        `${where}retry.initialDelayMs`,
        retry.initialDelayMs,
        DEFAULTS.initialDelayMs,
        0,
      ),
      maxDelayMs: limit(`${where}retry.maxDelayMs`, retry.maxDelayMs, DEFAULTS.maxDelayMs, 0),
      maxRetryAfterMs: limit(
        `${where}retry.maxRetryAfterMs`,
        retry.maxRetryAfterMs,
        DEFAULTS.maxRetryAfterMs,
        0,
      ),
    },
    timeouts: {
      headersMs: limit(`${where}timeouts.headersMs`, timeouts.headersMs, DEFAULTS.headersMs),
      firstEventMs: limit(
        `${where}timeouts.firstEventMs`,
        timeouts.firstEventMs,
        DEFAULTS.firstEventMs,
      ),
      idleMs: limit(`${where}timeouts.idleMs`, timeouts.idleMs, DEFAULTS.idleMs),
    },
  };
  if (typeof body.model === "string") target.info.model = body.model;
  return target;
}

/**
 * A fallback entry overrides what it names. The key and headers are inherited only by an entry
 * on exactly the primary's `baseURL` (a trailing slash aside): one origin can front several
 * providers (an AI gateway's `…/openai` and `…/anthropic` routes), and a key for one provider
 * must never reach another.
 */
function mergeFallback(
  base: StreamChatOptions,
  entry: Partial<StreamChatOptions>,
  i: number,
): StreamChatOptions {
  if (entry === null || typeof entry !== "object") {
    throw new TypeError(`stopstream: \`fallbacks[${i}]\` must be an object`);
  }
  rejectUnknownKeys(entry, OPTIONS, `fallbacks[${i}].`);
  for (const key of ["signal", "fallbacks", "onPartial", "retryBudget"] as const) {
    if (entry[key] !== undefined) {
      throw new TypeError(
        `stopstream: \`fallbacks[${i}].${key}\` is not allowed; set it on the call`,
      );
    }
  }
  const baseURL = entry.baseURL ?? base.baseURL;
  const sameTarget = typeof baseURL === "string" && typeof base.baseURL === "string" &&
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

function limit(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || Number.isNaN(value) || value < min) {
    throw new RangeError(`stopstream: \`${name}\` must be a number ≥ ${min} (ms), got ${value}`);
  }
  return value;
}

function count(name: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new RangeError(`stopstream: \`${name}\` must be an integer ≥ ${min}, got ${value}`);
  }
  return value;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
