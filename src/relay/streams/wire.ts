/**
 * What the relay's Worker side and its `RelayStream` Durable Object agree on: header names,
 * the stream id and the answer when there is no such stream, the plan a stream starts from, and
 * the slice of the Durable Object API the relay uses (declared here, so nothing imports
 * `cloudflare:workers`).
 *
 * @module
 */

import type { StreamChatOptions } from "../../chat_options.ts";
import { errorResponse } from "../error_response.ts";

/**
 * The request header that asks for a resumable stream (value `true`).
 *
 * @example
 * ```ts
 * headers.set(RESUMABLE_HEADER, "true");
 * ```
 */
export const RESUMABLE_HEADER = "x-stopstream-resumable";

// The response header with the stream id is the one the client reads (`x-stopstream-stream-id`).
export { STREAM_ID_HEADER } from "../../resumable.ts";

/** The header the Worker passes the caller's key hash to the Durable Object in. */
export const OWNER_HEADER = "x-stopstream-owner";

/**
 * The most readers a stream serves at once unless `maxStreamReaders` says otherwise; also what
 * the Durable Object assumes when a request does not say (a Worker of an older deploy).
 *
 * @example
 * ```ts
 * createRelay({ streams: env.STREAMS, maxStreamReaders: MAX_READERS * 2 });
 * ```
 */
export const MAX_READERS = 16;

/**
 * A stream id: 32 lowercase hex digits, 128 random bits.
 *
 * @example
 * ```ts
 * STREAM_ID.test("0123456789abcdef0123456789abcdef"); // true
 * ```
 */
export const STREAM_ID: RegExp = /^[0-9a-f]{32}$/;

/**
 * A new stream id from `crypto.getRandomValues`: 128 bits, so ids cannot be guessed.
 *
 * @example
 * ```ts
 * newStreamId(); // "9f1c…" (32 hex digits)
 * ```
 */
export function newStreamId(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

/**
 * Bytes as lowercase hex.
 *
 * @example
 * ```ts
 * toHex(new Uint8Array([1, 255])); // "01ff"
 * ```
 */
export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * Everything a `RelayStream` needs to run one upstream call: sent by the Worker in the request
 * that starts the stream, kept in memory only (upstream keys included) and never stored.
 *
 * @example
 * ```ts
 * const plan: StartPlan = { id, owner: "", call, upstreams: [0], demo: undefined, chat, keepAliveMs: 15_000, ttlMs: 600_000, maxBytes: 8 << 20 };
 * ```
 */
export interface StartPlan {
  /** The stream id. */
  id: string;
  /** SHA-256 of the creating key (hex), or `""` when the relay takes no keys. */
  owner: string;
  /** The `streamChat` options, minus what cannot cross to the Durable Object (signal, fetch). */
  call: StreamChatOptions;
  /**
   * The configured index of each of the call's targets (cooldown may have skipped some): what
   * `x-stopstream-upstream` and the `: upstream` comment name.
   */
  upstreams: readonly number[];
  /** The built-in demo upstream, served inside the Durable Object, when it is the upstream. */
  demo: { baseURL: string; wordDelayMs: number | undefined; fault: string | null } | undefined;
  /**
   * The chunk envelope: completion id, model, whether to send the usage chunk, and whether to
   * narrate the call in progress comments (`x-stopstream-progress`).
   */
  chat: { id: string; model: string; includeUsage: boolean; progress?: boolean };
  keepAliveMs: number;
  /** How long the stream is kept after it ends. */
  ttlMs: number;
  /** Largest number of stored bytes. */
  maxBytes: number;
}

/** The option groups whose numbers may be `Infinity` (no limit), which JSON cannot carry. */
const LIMIT_GROUPS = ["retry", "timeouts"] as const;

/**
 * A {@linkcode StartPlan} as the JSON text the Worker sends. JSON has no `Infinity` (it would
 * arrive as `null`, which `streamChat` refuses), so a limit of `Infinity` in `retry` or
 * `timeouts` travels as `null`, which no valid option is; {@linkcode decodePlan} restores it.
 *
 * @throws {RangeError} on another non-finite number there (NaN, -Infinity): it cannot travel,
 * and `createRelay` refuses it anyway.
 * @example
 * ```ts
 * const body = encodePlan(plan); // call.timeouts.idleMs: Infinity → null
 * ```
 */
export function encodePlan(plan: StartPlan): string {
  return JSON.stringify({ ...plan, call: mapCallLimits(plan.call, encodeLimit, NO_KEY) });
}

/**
 * The {@linkcode StartPlan} of {@linkcode encodePlan}'s text, its unbounded limits `Infinity`
 * again.
 *
 * @example
 * ```ts
 * const plan = decodePlan(await request.text());
 * ```
 */
export function decodePlan(text: string): StartPlan {
  const plan = JSON.parse(text) as StartPlan;
  return { ...plan, call: mapCallLimits(plan.call, decodeLimit, undefined) };
}

function encodeLimit(name: string, value: unknown): unknown {
  if (value === Number.POSITIVE_INFINITY) return null;
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new RangeError(`stopstream relay: ${name} cannot be ${value}`);
  }
  return value;
}

function decodeLimit(_name: string, value: unknown): unknown {
  return value === null ? Number.POSITIVE_INFINITY : value;
}

/**
 * A target's `apiKey` set to `undefined` (no key, and none to inherit from the primary, see
 * app.ts) travels as this, since JSON drops an `undefined`.
 */
const NO_KEY = null;

/**
 * `call` (and each fallback) with every number of `retry` and `timeouts` mapped, and an
 * `apiKey` present but empty (`undefined` or `null`) set to `noKey`.
 */
function mapCallLimits<T extends Partial<StreamChatOptions>>(
  call: T,
  map: (name: string, value: unknown) => unknown,
  noKey: null | undefined,
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
    mapped.fallbacks = call.fallbacks.map((fallback) => mapCallLimits(fallback, map, noKey));
  }
  return mapped as T;
}

/**
 * The Durable Object namespace the relay keeps resumable streams in (the `STREAMS` binding, of
 * class `RelayStream`). Only the two methods the relay calls are declared, so any real
 * namespace fits.
 *
 * @example
 * ```ts
 * createRelay({ streams: env.STREAMS as RelayStreamNamespace });
 * ```
 */
export interface RelayStreamNamespace {
  /** The id of the object for `name` (the relay names objects by stream id). */
  idFromName(name: string): unknown;
  /** A stub for an id: `fetch` sends a request to the object. */
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

/**
 * Whether `value` looks like a Durable Object namespace binding.
 *
 * @example
 * ```ts
 * if (isStreamNamespace(env.STREAMS)) options.streams = env.STREAMS;
 * ```
 */
export function isStreamNamespace(value: unknown): value is RelayStreamNamespace {
  const candidate = value as Partial<RelayStreamNamespace> | null | undefined;
  return typeof candidate?.idFromName === "function" && typeof candidate.get === "function";
}

/**
 * The answer for an unknown, expired or foreign stream id: the same for all three, so ids
 * cannot be probed.
 *
 * @example
 * ```ts
 * if (!STREAM_ID.test(id)) return streamNotFound();
 * ```
 */
export function streamNotFound(): Response {
  return errorResponse({
    status: 404,
    message: "No such stream: the id is unknown, or the stream has expired.",
    type: "invalid_request_error",
    code: "stream_not_found",
  });
}
