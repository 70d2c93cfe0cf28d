/**
 * The shared fault server for tests on every runtime: the demo upstream behind per-test routes
 * (`/t/<id>/…`), with request/cancel/completion counts each test can assert. Web APIs only, so
 * Node, Deno, Bun, workerd and the browser suite's loopback server all serve this same handler.
 *
 * @module
 */

import { createDemoUpstream } from "../../src/apps/demo/upstream.ts";

/**
 * What the fault server saw for one test id.
 *
 * @example
 * ```ts
 * const seen: FaultStats = { requests: 2, cancelled: 0, completed: 1 };
 * ```
 */
export interface FaultStats {
  /** Requests to `/t/<id>/…/chat/completions` (the attempt number of the last one). */
  requests: number;
  /** Streams the client cancelled or disconnected from before their end. */
  cancelled: number;
  /** Streams that reached their end (including an in-stream error event). */
  completed: number;
}

/**
 * Options of {@link createFaultHandler}.
 *
 * @example
 * ```ts
 * const options: FaultHandlerOptions = { wordDelayMs: 1 };
 * ```
 */
export interface FaultHandlerOptions {
  /** Default pacing of the demo model, in ms (default 2: tests must stay fast). */
  wordDelayMs?: number;
}

/**
 * The handler plus the in-process view of its counters.
 *
 * @example
 * ```ts
 * const { handler, stats, waitFor, reset } = createFaultHandler();
 * ```
 */
export interface FaultHandler {
  handler: (request: Request) => Promise<Response>;
  stats(id: string): FaultStats;
  /** Resolves once every given counter of `id` reached at least the given value. */
  waitFor(id: string, atLeast: Partial<FaultStats>, timeoutMs?: number): Promise<FaultStats>;
  reset(): void;
}

/**
 * Whether `error` is the demo's deliberate `drop-after` fault (the error its response body is
 * errored with, in src/apps/demo/stream.ts): a server that logs body errors may keep quiet about
 * this one, which tests provoke on purpose, and still log anything else.
 *
 * @example
 * ```ts
 * Deno.serve({ onError: (e) => (isDemoDrop(e) || console.error(e), new Response(null, { status: 500 })) }, handler);
 * ```
 */
export function isDemoDrop(error: unknown): boolean {
  return error instanceof Error &&
    /^demo upstream dropped the connection after \d+ words$/.test(error.message);
}

const ROUTE = /^\/t\/([^/]+)(?:\/f\/([^/]*))?\/v1\/chat\/completions$/;
const STATS_ROUTE = /^\/t\/([^/]+)\/stats$/;
const REDIRECT_ROUTE = /^\/t\/([^/]+)\/r\/([^/]+)\/v1\/chat\/completions$/;
const FIELDS = ["requests", "cancelled", "completed"] as const;
const CORS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "retry-after, retry-after-ms, x-demo-attempt, content-type",
};

/**
 * Create the fault server's fetch handler.
 *
 * Routes: `POST /t/<id>/v1/chat/completions` (faults from `x-demo-fault`),
 * `POST /t/<id>/f/<url-encoded spec>/v1/chat/completions` (faults in the path, for clients that
 * cannot set headers), `POST /t/<id>/r/<url-encoded URL>/v1/chat/completions` (a 307 to that
 * URL, counted as a request), `GET /t/<id>/stats` (JSON counters; `?cancelled=1&timeout=2000` waits
 * until `cancelled >= 1` so out-of-process tests need no sleeps), `GET /healthz`, and CORS
 * preflights. The attempt number is the count of requests seen for `<id>`.
 *
 * @example
 * ```ts
 * const faults = createFaultHandler();
 * const res = await faults.handler(new Request("http://x/t/t1/f/status%3D503/v1/chat/completions", {
 *   method: "POST", body: JSON.stringify({ messages: [] }),
 * }));
 * res.status; // 503
 * faults.stats("t1").requests; // 1
 * ```
 */
export function createFaultHandler(options: FaultHandlerOptions = {}): FaultHandler {
  const counters = new Map<string, FaultStats>();
  const waiters = new Set<() => void>();
  const get = (id: string): FaultStats => {
    let entry = counters.get(id);
    if (entry === undefined) {
      entry = { requests: 0, cancelled: 0, completed: 0 };
      counters.set(id, entry);
    }
    return entry;
  };
  const bump = (id: string, field: keyof FaultStats): void => {
    get(id)[field]++;
    for (const wake of [...waiters]) wake();
  };
  const stats = (id: string): FaultStats => ({ ...get(id) });
  const reached = (id: string, atLeast: Partial<FaultStats>): boolean =>
    FIELDS.every((field) => get(id)[field] >= (atLeast[field] ?? 0));

  const waitFor = (id: string, atLeast: Partial<FaultStats>, timeoutMs = 2000) =>
    new Promise<FaultStats>((resolve) => {
      // Resolves with the current counters on timeout: the caller's assertion then fails with
      // a readable diff instead of a hung test.
      const done = (): void => {
        waiters.delete(check);
        clearTimeout(timer);
        resolve(stats(id));
      };
      const check = (): void => {
        if (reached(id, atLeast)) done();
      };
      const timer = setTimeout(done, timeoutMs);
      waiters.add(check);
      check();
    });

  const serve = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (request.method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          "access-control-allow-methods": "GET, POST, OPTIONS",
          "access-control-allow-headers": request.headers.get("access-control-request-headers") ??
            "authorization, content-type, x-demo-fault",
          "access-control-max-age": "600",
        },
      });
    }
    if (url.pathname === "/healthz") return Response.json({ ok: true });
    const statsMatch = STATS_ROUTE.exec(url.pathname);
    if (statsMatch !== null && request.method === "GET") {
      const id = decodeURIComponent(statsMatch[1] ?? "");
      const atLeast: Partial<FaultStats> = {};
      for (const field of FIELDS) {
        const value = url.searchParams.get(field);
        if (value !== null) atLeast[field] = Number(value);
      }
      const timeout = Number(url.searchParams.get("timeout") ?? 2000);
      return Response.json(await waitFor(id, atLeast, timeout));
    }
    const redirect = REDIRECT_ROUTE.exec(url.pathname);
    if (redirect !== null) {
      bump(decodeURIComponent(redirect[1] ?? ""), "requests");
      const location = decodeURIComponent(redirect[2] ?? "");
      return new Response(null, { status: 307, headers: { location } });
    }
    const match = ROUTE.exec(url.pathname);
    if (match === null) {
      return Response.json({ error: { message: `No fault route ${url.pathname}` } }, {
        status: 404,
      });
    }
    const id = decodeURIComponent(match[1] ?? "");
    const spec = [request.headers.get("x-demo-fault"), decodeURIComponent(match[2] ?? "")]
      .filter((part) => part !== null && part !== "").join(",");
    bump(id, "requests");
    const headers = new Headers(request.headers);
    headers.set("x-demo-fault", spec);
    headers.set("x-demo-attempt", String(get(id).requests));
    const init: RequestInit = { method: request.method, headers, signal: request.signal };
    if (request.method !== "GET" && request.method !== "HEAD") init.body = await request.text();
    const demo = createDemoUpstream({
      wordDelayMs: options.wordDelayMs ?? 2,
      onCancel: () => bump(id, "cancelled"),
    });
    const response = await demo(new Request(request.url, init));
    const body = response.body;
    if (body === null || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
      return response;
    }
    return new Response(countCompletion(body, () => bump(id, "completed")), response);
  };

  return {
    handler: async (request) => {
      const response = await serve(request);
      for (const [name, value] of Object.entries(CORS)) response.headers.set(name, value);
      return response;
    },
    stats,
    waitFor,
    reset: () => counters.clear(),
  };
}

/** Pass a body through, reporting when it ended normally; a cancel reaches the demo's own. */
function countCompletion(
  body: ReadableStream<Uint8Array>,
  onComplete: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let cancelled = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      // A cancel makes the pending read report `done`: that is not a completed stream.
      if (cancelled) return;
      if (done) {
        onComplete();
        controller.close();
      } else {
        controller.enqueue(value);
      }
    },
    cancel(reason) {
      cancelled = true;
      return reader.cancel(reason);
    },
  });
}
