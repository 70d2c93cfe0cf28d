/**
 * The `fetch` the relay hands to `streamChat` for one caller request: it counts upstream
 * requests, serves the built-in demo in-process, decides which caller headers travel, and
 * reads event streams in large pieces (upstream_body.ts).
 *
 * @module
 */

import { DEMO_ATTEMPT_HEADER, DEMO_FAULT_HEADER } from "../demo/upstream.ts";
import { type PieceTap, readInPieces } from "./upstream_body.ts";

/**
 * Caller headers that may reach a real upstream. Everything else stays behind: the caller's
 * `Authorization` (the relay sends the upstream's own key), cookies, hop-by-hop headers,
 * Cloudflare's `cf-*`/`x-forwarded-*` and the demo's fault headers.
 */
const FORWARDED_HEADERS: readonly string[] = ["anthropic-beta", "openai-beta"];

/**
 * The headers of the caller's request that may be sent upstream (an allowlist).
 *
 * @example
 * ```ts
 * forwardedHeaders(new Headers({ authorization: "Bearer x", "openai-beta": "y" })); // { "openai-beta": "y" }
 * ```
 */
export function forwardedHeaders(headers: Headers): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = headers.get(name);
    if (value !== null) forwarded[name] = value;
  }
  return forwarded;
}

/**
 * The in-process demo upstream, when the relay serves it.
 *
 * @example
 * ```ts
 * const demo: InProcessDemo = { baseURL: "https://relay.example/demo/v1", handler, fault: null };
 * ```
 */
export interface InProcessDemo {
  /** Requests under this base URL go to `handler` without a network hop. */
  baseURL: string;
  handler: (request: Request) => Promise<Response>;
  /** The caller's `x-demo-fault` header, or `null`. */
  fault: string | null;
}

/**
 * A `fetch` for one relayed call, how many upstream requests it has made so far, and what its
 * reads of an event stream last handed on.
 *
 * @example
 * ```ts
 * const upstream: UpstreamFetch = createUpstreamFetch(undefined, undefined);
 * upstream.calls; // 0
 * ```
 */
export interface UpstreamFetch {
  fetch: typeof fetch;
  readonly calls: number;
  readonly tap: PieceTap;
}

/**
 * Build the per-request upstream `fetch`. Demo requests carry the caller's `x-demo-fault` and
 * an `x-demo-attempt` numbered by this counter, so per-attempt faults (`attempt1=status:503`)
 * work through the relay; requests to real upstreams get neither.
 *
 * @example
 * ```ts
 * const upstream = createUpstreamFetch(undefined, { baseURL, handler: createDemoUpstream(), fault: "attempt1=status:503" });
 * streamChat({ baseURL, body, fetch: upstream.fetch });
 * ```
 */
export function createUpstreamFetch(
  base: typeof fetch | undefined,
  demo: InProcessDemo | undefined,
): UpstreamFetch {
  const tap: PieceTap = { seq: 0, bytes: undefined, coalesce: false, reads: 0 };
  const state = {
    calls: 0,
    tap,
    fetch: (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      state.calls++;
      if (demo !== undefined) {
        const request = new Request(input, init);
        if (request.url.startsWith(`${demo.baseURL}/`)) return callDemo(demo, request, state.calls);
      }
      return (base ?? globalThis.fetch)(input, init).then((response) =>
        readInPieces(response, tap)
      );
    },
  };
  return state;
}

function callDemo(demo: InProcessDemo, request: Request, attempt: number): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set(DEMO_ATTEMPT_HEADER, String(attempt));
  if (demo.fault !== null) headers.set(DEMO_FAULT_HEADER, demo.fault);
  const signal = request.signal;
  if (signal.aborted) return Promise.reject(signal.reason);
  const pending = demo.handler(new Request(request, { headers }));
  // A real fetch rejects at once on abort, even while waiting for headers; so must this one.
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
