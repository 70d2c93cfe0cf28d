/**
 * A scripted OpenAI-compatible upstream for the core tests: the n-th request gets the n-th
 * reply, every request is recorded (count, headers, body, abort), and "the handler was entered"
 * is a promise. Served by MSW (`useMockUpstream`) or by a real loopback server
 * (`startLoopbackUpstream`, for tests where the socket matters).
 *
 * @module
 */

import { http, type RequestHandler } from "msw";
import { setupServer, type SetupServerApi } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";
import { jumpPastEveryWait } from "./clock.ts";
import { type NodeServer, type ServedRequest, startNodeServer } from "./node_server.ts";
import { type ScriptedBody, scriptedBody, type Step } from "./sse.ts";

/** Base URL of the MSW upstream. */
export const BASE_URL = "https://llm.test/v1";
/** Where `streamChat` posts for {@link BASE_URL}. */
export const CHAT_URL = `${BASE_URL}/chat/completions`;

/** One request the upstream received. */
export interface Seen {
  /** 1-based arrival number. */
  n: number;
  url: string;
  headers: Headers;
  /** The JSON request body. */
  body: Record<string, unknown>;
  /** Aborts when the client aborts the request (MSW) or closes the socket (loopback). */
  signal: AbortSignal;
  /** The scripted body served, when the reply had one. */
  stream?: ScriptedBody;
}

/** How to answer one request. */
export type Reply = (seen: Seen) => Response | Promise<Response>;

/**
 * Answers with a `text/event-stream` body playing `steps` (or one string).
 *
 * @example
 * ```ts
 * upstream.reply(sseReply(openAIText(["ok"])));
 * ```
 */
export function sseReply(
  steps: string | readonly Step[],
  init: { status?: number; headers?: Record<string, string> } = {},
): Reply {
  return (seen) => {
    const body = scriptedBody(typeof steps === "string" ? [steps] : steps, seen.signal);
    seen.stream = body;
    return new Response(body.stream, {
      status: init.status ?? 200,
      headers: { "content-type": "text/event-stream; charset=utf-8", ...init.headers },
    });
  };
}

/**
 * Answers with a JSON body (an error object, usually).
 *
 * @example
 * ```ts
 * jsonReply(503, { error: { message: "overloaded" } }, { "retry-after": "1" });
 * ```
 */
export function jsonReply(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Reply {
  return () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
}

/**
 * Answers with a text body of any content type.
 *
 * @example
 * ```ts
 * textReply(200, "<html>Bad gateway</html>", "text/html");
 * ```
 */
export function textReply(
  status: number,
  text: string,
  contentType = "text/plain",
  headers: Record<string, string> = {},
): Reply {
  return () => new Response(text, { status, headers: { "content-type": contentType, ...headers } });
}

/**
 * A network failure (fetch rejects with `TypeError: Failed to fetch`). MSW only.
 *
 * @example
 * ```ts
 * upstream.reply(networkError, networkError, sseReply(openAIText(["ok"])));
 * ```
 */
export const networkError: Reply = () => Response.error();

/**
 * Never answers: waits until the client aborts, then fails like a dropped connection.
 *
 * @example
 * ```ts
 * upstream.reply(noAnswer); // the headers timeout or an abort must end it
 * ```
 */
export const noAnswer: Reply = async (seen) => {
  await new Promise<void>((resolve) => {
    if (seen.signal.aborted) resolve();
    seen.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  return Response.error();
};

/**
 * A reply that waits for `gate` before answering with `then`.
 *
 * @example
 * ```ts
 * const g = gate(); upstream.reply(after(g.promise, networkError)); … g.open();
 * ```
 */
export function after(wait: Promise<unknown>, then: Reply): Reply {
  return async (seen) => {
    await wait;
    return then(seen);
  };
}

/**
 * A promise opened from outside.
 *
 * @example
 * ```ts
 * const g = gate(); setTimeout(g.open, 1); await g.promise;
 * ```
 */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** A scripted upstream: what it saw, and how it answers. */
export interface ScriptedUpstream {
  /** Every request so far, in arrival order. */
  readonly requests: readonly Seen[];
  /** Number of requests so far. */
  readonly count: number;
  /** The n-th request gets `replies[n - 1]`; the last reply answers every later request. */
  reply(...replies: Reply[]): void;
  /** Resolves when the n-th request has entered the handler. */
  entered(n: number): Promise<Seen>;
  /**
   * Proves the absence of a further request, on the fake clock (`useFakeClock()`): jumps it
   * `ms` ahead (default: past every wait of the library), firing every backoff and timer due,
   * then checks the count did not move. Only for absence; never to synchronise.
   */
  expectNoMoreRequests(ms?: number): Promise<void>;
  /** The fetch-style handler (for servers). */
  handle(request: Request): Promise<Response>;
  /** Forgets requests and replies. */
  reset(): void;
}

/**
 * The upstream logic, independent of what serves it.
 *
 * @example
 * ```ts
 * const upstream = scriptedUpstream();
 * upstream.reply(sseReply(openAIText(["ok"])));
 * ```
 */
export function scriptedUpstream(): ScriptedUpstream {
  let replies: Reply[] = [];
  const requests: Seen[] = [];
  let waiters: Array<() => void> = [];
  const upstream: ScriptedUpstream = {
    requests,
    get count() {
      return requests.length;
    },
    reply(...list) {
      replies = list;
    },
    async entered(n) {
      while (requests.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return requests[n - 1]!;
    },
    async expectNoMoreRequests(ms) {
      const before = requests.length;
      await jumpPastEveryWait(ms);
      if (requests.length !== before) {
        throw new Error(`expected no further request, got ${requests.length - before} more`);
      }
    },
    async handle(request) {
      const text = await request.text();
      const seen: Seen = {
        n: requests.length + 1,
        url: request.url,
        headers: request.headers,
        body: text === "" ? {} : JSON.parse(text),
        signal: request.signal,
      };
      requests.push(seen);
      const wake = waiters;
      waiters = [];
      for (const resolve of wake) resolve();
      const reply = replies[Math.min(seen.n, replies.length) - 1];
      if (reply === undefined) throw new Error(`no reply scripted for request ${seen.n}`);
      return await reply(seen);
    },
    reset() {
      replies = [];
      requests.length = 0;
      waiters = [];
    },
  };
  return upstream;
}

/**
 * An MSW server (`onUnhandledRequest: "error"`) answering `POST {BASE_URL}/chat/completions`
 * with a scripted upstream, reset after each test. Call once at the top of a test file.
 *
 * @example
 * ```ts
 * const upstream = useMockUpstream();
 * test("…", async () => { upstream.reply(sseReply(openAIText(["ok"]))); … });
 * ```
 */
export function useMockUpstream(): ScriptedUpstream {
  const upstream = scriptedUpstream();
  useMswServer(http.post(CHAT_URL, ({ request }) => upstream.handle(request)));
  afterEach(() => upstream.reset());
  return upstream;
}

/**
 * An MSW server for this test file (`onUnhandledRequest: "error"`): listens before the first
 * test, drops the handlers a test added with `server.use` after each test (`handlers` stay),
 * closes after the last. Call once at the top of a test file.
 *
 * @example
 * ```ts
 * const server = useMswServer();
 * test("…", async () => { server.use(http.post(url, () => HttpResponse.json({}))); … });
 * ```
 */
export function useMswServer(...handlers: RequestHandler[]): SetupServerApi {
  const server = setupServer(...handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/** A scripted upstream on a real loopback socket. */
export interface LoopbackUpstream extends ScriptedUpstream {
  /** `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  /**
   * The global `fetch`, counted: give it to the client, and `expectNoMoreRequests` also sees a
   * request the moment it starts, before the socket carries it to the server.
   */
  fetch: typeof fetch;
  /** Requests started through {@link LoopbackUpstream.fetch} so far. */
  readonly fetches: number;
  /** The server's view of the n-th request, including how its response ended. */
  served(n: number): Promise<ServedRequest>;
  close(): Promise<void>;
  server: NodeServer;
}

/**
 * Serves a scripted upstream from a `node:http` server on 127.0.0.1, so a test can see the
 * client close its connection.
 *
 * @example
 * ```ts
 * const upstream = await startLoopbackUpstream();
 * expect(await (await upstream.served(1)).closed).toBe("aborted");
 * await upstream.close();
 * ```
 */
export async function startLoopbackUpstream(): Promise<LoopbackUpstream> {
  const upstream = scriptedUpstream();
  const server = await startNodeServer((request) => upstream.handle(request));
  let fetches = 0;
  const onServer = upstream.expectNoMoreRequests;
  // (Object.assign would copy a getter's value, not the getter.)
  Object.defineProperty(upstream, "fetches", { get: () => fetches });
  return Object.assign(upstream as ScriptedUpstream & { readonly fetches: number }, {
    baseURL: `${server.url}/v1`,
    fetch: ((input, init) => {
      fetches++;
      return fetch(input, init);
    }) as typeof fetch,
    // A request a timer started is still on its way over the socket when the clock has jumped:
    // the client's count is what proves there was none.
    async expectNoMoreRequests(ms?: number) {
      if (fetches === 0 && upstream.count > 0) {
        throw new Error("expectNoMoreRequests on a loopback upstream: give the client its fetch");
      }
      const before = fetches;
      await onServer(ms);
      if (fetches !== before) {
        throw new Error(`expected no further request, ${fetches - before} more started`);
      }
    },
    served: (n: number) => server.request(n),
    close: () => server.close(),
    server,
  });
}

/**
 * Runs `body` with a fresh {@link startLoopbackUpstream} server and closes it afterwards,
 * whether `body` passed or failed.
 *
 * @example
 * ```ts
 * await withLoopbackUpstream(async (server) => {
 *   server.reply(sseReply(openAIText(["ok"])));
 *   expect(server.count).toBe(0);
 * });
 * ```
 */
export async function withLoopbackUpstream(
  body: (server: LoopbackUpstream) => Promise<void>,
): Promise<void> {
  const server = await startLoopbackUpstream();
  try {
    await body(server);
  } finally {
    await server.close();
  }
}
