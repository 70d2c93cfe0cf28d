import { DEMO_ATTEMPT_HEADER, DEMO_FAULT_HEADER } from "../apps/demo/upstream.ts";
import { type PieceTap, readInPieces } from "./upstream_body.ts";

/**
 * An allowlist: the caller's `Authorization`, cookies, hop-by-hop, `cf-*`/`x-forwarded-*` and the
 * demo's fault headers must not reach a real upstream.
 */
const FORWARDED_HEADERS: readonly string[] = ["anthropic-beta", "openai-beta"];

export function forwardedHeaders(headers: Headers): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = headers.get(name);
    if (value !== null) forwarded[name] = value;
  }
  return forwarded;
}

export interface InProcessDemo {
  /** Requests under this base URL go to `handler` without a network hop. */
  baseURL: string;
  handler: (request: Request) => Promise<Response>;
  fault: string | null;
}

export interface UpstreamFetch {
  fetch: typeof fetch;
  readonly calls: number;
  readonly tap: PieceTap;
}

/**
 * Demo requests carry the caller's `x-demo-fault` and an `x-demo-attempt` from this counter, so
 * per-attempt faults work through the relay; real upstreams get neither.
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
