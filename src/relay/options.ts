import type { RetryOptions, Timeouts } from "../core/chat_options.ts";
import type { RetryBudget } from "../core/retry_budget.ts";
import type { RelayNamespace } from "./durable.ts";
import type { RelayStreamNamespace } from "./streams/wire.ts";
import type { RelayUpstream, ResolvedUpstream } from "./upstreams.ts";

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
 * upstream requests this is (`attempt`, from 1), for an upstream served by the same runtime.
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
  /** Calls the upstreams (tests, an upstream served in the same runtime). Default `globalThis.fetch`. */
  fetch?: RelayFetch;
  /** Caller headers passed on to upstreams, besides `anthropic-beta` and `openai-beta`. */
  forwardHeaders?: string[];
  /** What `GET /v1/models` lists. Default: each upstream's `model`, or its own list. */
  models?: string[];
  /** Retries per upstream after its first attempt (the client's `maxRetries`). */
  maxRetries?: number;
  /** Backoff between attempts (the client's `retry`). */
  retry?: RetryOptions;
  /** The client's `timeouts`; defaults `headersMs` 10 000, `firstEventMs`/`idleMs` 60 000. */
  timeouts?: Timeouts;
  /** `RelayStream`'s Durable Object namespace; enables resumable streams. Default none. */
  streams?: RelayStreamNamespace;
  /** How long a resumable stream is kept after it ends, in ms. Default 600 000 (10 minutes). */
  resumeTtlMs?: number;
  /** How long a running resumable stream may go unread before it stops, in ms. Default 120 000. */
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
   * asks for the rest; the request header `x-stopstream-on-partial` wins.
   */
  onPartial?: "error" | "continue";
  /** `RelayHealth`'s Durable Object namespace: cooldowns shared by every isolate. Default none. */
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
type Unset = "fetch" | "maxRetries" | "retry" | "streams" | "models" | "health" | "limits";

export type ResolvedRelayOptions =
  & Required<Omit<RelayOptions, Unset | "upstreams" | "retryBudget" | "timeouts">>
  & { [K in Unset]: RelayOptions[K] | undefined }
  & {
    upstreams: ResolvedUpstream[];
    retryBudget: RetryBudget | undefined;
    timeouts: Required<Timeouts>;
  };
