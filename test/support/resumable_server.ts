/**
 * Loopback imitations of servers that keep a stream running when the client's connection
 * drops, for the client's resume tests:
 *
 * - `"relay"`, the stopstream relay's resumable streams: `POST /v1/chat/completions` answers
 *   with `x-stopstream-stream-id` and `id: <n>` (1-based) on every event;
 *   `GET /v1/streams/{id}` replays the events after `Last-Event-ID`;
 *   `POST /v1/streams/{id}/cancel` is recorded.
 * - `"background"`, OpenAI Responses background mode: `POST /v1/responses` (with
 *   `background: true`) streams events carrying `sequence_number` (0-based);
 *   `GET /v1/responses/{id}?stream=true&starting_after=<n>` streams the events after `n`;
 *   `POST /v1/responses/{id}/cancel` is recorded.
 *
 * Every connection to the stream (the POST that starts it, then each resume) follows its
 * entry in a script: end or cut after some event (half of the next one sent, then the body
 * ended or the socket destroyed), stall, answer a status, replay from the start or leave
 * events out (at its start or further on) whatever the client asked for, or hold the headers.
 *
 * @module
 */

import { expect } from "vitest";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import type { ChatResult, StreamEvent } from "../../src/core/chat_result.ts";
import { jumpPastEveryWait } from "./clock.ts";
import { type NodeServer, type ServedRequest, startNodeServer } from "./node_server.ts";

const encoder = new TextEncoder();

/** How one connection to the stream behaves; `{}` sends every event from the position asked. */
export interface Connection {
  /**
   * Send the events before this index (0-based, over the whole stream), half of the one at
   * it, then end the body: the client sees it end before its terminal event, after all it sent.
   */
  endAt?: number;
  /**
   * Send as `endAt`, then destroy the socket: the client may lose what it had received but not
   * yet read, so where it resumes depends on timing (the answer must not).
   */
  cutAt?: number;
  /** Send the events before this index, then nothing (a stall) until the client goes away. */
  stallAt?: number;
  /** Answer this status with an OpenAI-shaped error instead of the stream. */
  status?: number;
  /** Extra response headers (a `retry-after` with a 503, say). */
  headers?: Record<string, string>;
  /** Replay from the first event, whatever position the client asked for. */
  fromStart?: boolean;
  /** Leave out this many events after the position the client asked for (a gap). */
  skip?: number;
  /** Leave out the events at these indexes (0-based, over the whole stream): a gap further on. */
  omit?: readonly number[];
  /** Send no headers until the client goes away. */
  hold?: boolean;
  /** Send no event id on this connection (relay only). */
  noIds?: boolean;
}

/** One request the server saw, with its arrival time. */
export interface Seen {
  method: string;
  /** Path and query. */
  path: string;
  headers: Headers;
  /** `Date.now()` on arrival. */
  at: number;
  /** `"finished"`, `"aborted"` (the client went away) or `"dropped"` (the script cut it). */
  closed: ServedRequest["closed"];
}

/** A running imitation. */
export interface ResumableServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseURL: string;
  server: NodeServer;
  /** Requests that started or resumed the stream, in order (cancels excluded). */
  readonly connections: readonly Seen[];
  /** Cancel requests, in order. */
  readonly cancels: readonly Seen[];
  /** Resolves with the n-th (1-based) stream connection as soon as it has arrived. */
  connection(n: number): Promise<Seen>;
  /** Resolves with the first cancel request. */
  cancelled: Promise<Seen>;
  /**
   * The global `fetch`, counted: a client given it is seen starting a request at once, before
   * the socket carries it here ({@link relayOptions} gives it).
   */
  fetch: typeof fetch;
  /**
   * Proves that no further connection or cancel comes, on the fake clock (`useFakeClock()`):
   * jumps it past every wait of the client, then checks that the client started no request
   * through {@link ResumableServer.fetch} and that this server saw none.
   */
  expectNoMoreRequests(): Promise<void>;
  /** `Date.now()` when the n-th connection (0-based) was cut or began to stall. */
  readonly cutTimes: number[];
  close(): Promise<void>;
}

/** The relay's stream id in the imitation (not secret: the tests need no randomness here). */
export const RELAY_STREAM_ID = "strm_0123456789abcdef0123456789abcdef";

/**
 * Starts an imitation serving `events` (whole SSE blocks, `\n\n`-terminated, without `id:`)
 * as one stream, its connections following `script`.
 *
 * @example
 * ```ts
 * const server = await startResumableServer("relay", blocks, [{ cutAt: 3 }]);
 * const result = await streamChat({ baseURL: server.baseURL, body }).result;
 * ```
 */
export async function startResumableServer(
  kind: "relay" | "background",
  events: readonly string[],
  script: readonly Connection[] = [],
): Promise<ResumableServer> {
  const connections: Seen[] = [];
  const cancels: Seen[] = [];
  const cutTimes: number[] = [];
  const arrivals: Array<() => void> = [];
  let onCancel!: (seen: Seen) => void;
  const cancelled = new Promise<Seen>((resolve) => (onCancel = resolve));
  const streamId = kind === "relay" ? RELAY_STREAM_ID : responseId(events);
  const base = kind === "relay" ? `/v1/streams/${streamId}` : `/v1/responses/${streamId}`;
  const claimed = new Set<ServedRequest>();

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname + url.search;
    const record = (): Seen => {
      // The server's own record of this request: the first unclaimed one with its method and path.
      const mine = served.requests().find((r) =>
        !claimed.has(r) && r.method === request.method && r.path === path
      )!;
      claimed.add(mine);
      return {
        method: request.method,
        path,
        headers: request.headers,
        at: Date.now(),
        closed: mine.closed,
      };
    };
    if (request.method === "POST" && url.pathname === `${base}/cancel`) {
      const seen = record();
      cancels.push(seen);
      onCancel(seen);
      return Response.json({ id: streamId, status: "cancelled" });
    }
    const start = kind === "relay" ? "/v1/chat/completions" : "/v1/responses";
    let from: number;
    if (request.method === "POST" && url.pathname === start) {
      from = 0;
    } else if (request.method === "GET" && url.pathname === base) {
      from = kind === "relay"
        ? Number(request.headers.get("last-event-id") ?? "0")
        : Number(url.searchParams.get("starting_after") ?? "-1") + 1;
    } else {
      return errorResponse(404, `no such stream: ${path}`);
    }
    const n = connections.length;
    connections.push(record());
    for (const wake of arrivals.splice(0)) wake();
    const step = script[n] ?? {};
    if (step.hold) {
      await new Promise<void>((resolve) =>
        request.signal.addEventListener("abort", () => resolve())
      );
      return errorResponse(499, "the client went away");
    }
    if (step.status !== undefined) {
      return errorResponse(step.status, `scripted ${step.status}`, step.headers);
    }
    const blocks = events.map((block, i) =>
      kind === "relay" && !step.noIds ? `id: ${i + 1}\n${block}` : block
    );
    const first = step.fromStart ? 0 : from + (step.skip ?? 0);
    const body = scriptedStream(blocks, first, step, request.signal, () => {
      cutTimes[n] = Date.now();
    });
    const headers: Record<string, string> = { "content-type": "text/event-stream" };
    if (kind === "relay") headers["x-stopstream-stream-id"] = streamId;
    return new Response(body, { headers: { ...headers, ...step.headers } });
  };

  const served: NodeServer = await startNodeServer(handler);
  let fetches = 0;
  return {
    baseURL: `${served.url}/v1`,
    server: served,
    connections,
    cancels,
    cutTimes,
    cancelled,
    fetch: (input, init) => {
      fetches++;
      return fetch(input, init);
    },
    async expectNoMoreRequests() {
      if (fetches === 0) throw new Error("expectNoMoreRequests: give the client server.fetch");
      const before = { fetches, connections: connections.length, cancels: cancels.length };
      await jumpPastEveryWait();
      expect({ fetches, connections: connections.length, cancels: cancels.length }, "no more")
        .toEqual(before);
    },
    async connection(count) {
      while (connections.length < count) {
        await new Promise<void>((resolve) => arrivals.push(resolve));
      }
      return connections[count - 1]!;
    },
    close: () => served.close(),
  };
}

/** One block per pull from `from`, then the scripted end (a cut, a stall, or the end). */
function scriptedStream(
  blocks: readonly string[],
  from: number,
  step: Connection,
  signal: AbortSignal,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  const stop = Math.min(step.endAt ?? step.cutAt ?? step.stallAt ?? blocks.length, blocks.length);
  let next = from;
  let halfSent = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (step.omit?.includes(next)) next++;
      if (next < stop) return controller.enqueue(encoder.encode(blocks[next++]!));
      if (step.endAt !== undefined || step.cutAt !== undefined) {
        const block = blocks[stop];
        if (!halfSent && block !== undefined) {
          halfSent = true;
          return controller.enqueue(encoder.encode(block.slice(0, block.length >> 1)));
        }
        onEnd();
        if (step.endAt !== undefined) return controller.close();
        // An errored body makes the server destroy the socket: the client sees a cut.
        return controller.error(new Error("scripted cut"));
      }
      if (step.stallAt !== undefined) {
        onEnd();
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          signal.addEventListener("abort", () => resolve());
        });
        return controller.error(new Error("the client went away"));
      }
      controller.close();
    },
  }, { highWaterMark: 0 });
}

function responseId(events: readonly string[]): string {
  const created = /"response":\{"id":"([^"]+)"/.exec(events[0] ?? "");
  if (created === null) throw new Error("a background stream starts with response.created");
  return created[1]!;
}

function errorResponse(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ error: { message, type: "invalid_request_error", code: null } }, {
    status,
    headers,
  });
}

/**
 * The SSE blocks of a recorded stream (each ending with a blank line).
 *
 * @example
 * ```ts
 * sseBlocks("data: 1\n\ndata: 2\n\n"); // ["data: 1\n\n", "data: 2\n\n"]
 * ```
 */
export function sseBlocks(text: string): string[] {
  return text.split(/\n\n/).filter((block) => block.trim() !== "").map((block) => `${block}\n\n`);
}

/**
 * What the caller sees of an answer: its events without the connection bookkeeping (`open`,
 * `resume`, `finish`), to compare a resumed stream with an undisturbed one.
 *
 * @example
 * ```ts
 * expect(answerEvents(resumed.events)).toEqual(answerEvents(clean.events));
 * ```
 */
export function answerEvents(events: readonly StreamEvent[]): StreamEvent[] {
  return events.filter((e) => e.type !== "open" && e.type !== "resume" && e.type !== "finish");
}

/**
 * A result without the fields that count requests or name the server.
 *
 * @example
 * ```ts
 * expect(answerOf(resumed)).toEqual(answerOf(clean));
 * ```
 */
export function answerOf(result: ChatResult | undefined): Partial<ChatResult> {
  const { attempts: _a, resumes: _r, target: _t, trace: _tr, ...rest } = result!;
  return rest;
}

/**
 * The imitations a test file starts, closed together (call `closeAll` in `afterEach`).
 *
 * @example
 * ```ts
 * const pool = new ServerPool();
 * afterEach(() => pool.closeAll());
 * const server = await pool.start("relay", blocks, [{ endAt: 3 }]);
 * ```
 */
export class ServerPool {
  #servers: ResumableServer[] = [];

  /** Starts an imitation (as {@linkcode startResumableServer}) and keeps it to close. */
  async start(
    kind: "relay" | "background",
    events: readonly string[],
    script: readonly Connection[] = [],
  ): Promise<ResumableServer> {
    const server = await startResumableServer(kind, events, script);
    this.#servers.push(server);
    return server;
  }

  async closeAll(): Promise<void> {
    const servers = this.#servers.splice(0);
    await Promise.all(servers.map((server) => server.close()));
  }
}

/**
 * Options for a call to a relay imitation's resumable stream: the resumable header, the key,
 * a backoff of a millisecond or two, and `extra` on top.
 *
 * @example
 * ```ts
 * const result = await streamChat(relayOptions(server, "sk-test", body)).result;
 * ```
 */
export function relayOptions(
  server: ResumableServer,
  apiKey: string,
  body: Record<string, unknown>,
  extra: Partial<StreamChatOptions> = {},
): StreamChatOptions {
  return {
    baseURL: server.baseURL,
    apiKey,
    headers: { "x-stopstream-resumable": "true" },
    body,
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    fetch: server.fetch,
    ...extra,
  };
}
