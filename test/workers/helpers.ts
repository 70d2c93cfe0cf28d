/**
 * Helpers for the relay's workerd tests: requests, SSE parsing, fake upstreams.
 *
 * @module
 */

import type { Hono } from "hono";
import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import type { RelayOptions } from "../../src/relay/options.ts";

/** A parsed SSE response body. */
export interface SSEBody {
  /** Parsed JSON of every `data:` line except `[DONE]`. */
  data: Array<Record<string, unknown>>;
  /** Comment lines (`: keep-alive`), in order, with their position among data events. */
  comments: Array<{ text: string; beforeData: number }>;
  done: boolean;
  raw: string;
}

/** Parse a complete SSE body as the relay writes it. */
export function parseSSE(raw: string): SSEBody {
  const body: SSEBody = { data: [], comments: [], done: false, raw };
  for (const block of raw.split("\n\n")) {
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        body.comments.push({ text: line.slice(1).trim(), beforeData: body.data.length });
      } else if (line.startsWith("data: ")) {
        const data = line.slice(6);
        if (data === "[DONE]") body.done = true;
        else body.data.push(JSON.parse(data));
      }
    }
  }
  return body;
}

/** The text of every `delta.content` in the chunks. */
export function contentOf(body: SSEBody): string {
  return body.data.map((c) => (deltaOf(c)?.content as string | undefined) ?? "").join("");
}

/** The first choice's `delta` of a chunk. */
export function deltaOf(chunk: Record<string, unknown>): Record<string, unknown> | undefined {
  const choices = chunk.choices as Array<{ delta: Record<string, unknown> }> | undefined;
  return choices?.[0]?.delta;
}

/** POST a chat completions request to an app (or any fetcher). */
export function postChat(
  app: Pick<Hono, "request">,
  body: Record<string, unknown>,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Response> {
  return Promise.resolve(app.request("http://relay.test/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", ...init.headers },
    body: JSON.stringify(body),
    ...(init.signal ? { signal: init.signal } : {}),
  }));
}

/** A minimal chat request. */
export function chatBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: "demo", messages: [{ role: "user", content: "hello relay" }], ...extra };
}

/** One request a fake upstream received. */
export interface SeenRequest {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/**
 * A fake upstream `fetch`: records every request and answers with `respond(request, n)`.
 */
export function fakeUpstream(
  respond: (request: SeenRequest, n: number) => Response | Promise<Response>,
): { fetch: typeof fetch; seen: SeenRequest[] } {
  const seen: SeenRequest[] = [];
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const entry: SeenRequest = {
      url: request.url,
      headers: request.headers,
      body: await request.json(),
    };
    seen.push(entry);
    return respond(entry, seen.length);
  };
  return { fetch: fetchFn as typeof fetch, seen };
}

/** An SSE response whose body is the given events (each a complete `data:`/`event:` block). */
export function sseResponse(events: string[]): Response {
  return new Response(events.join(""), {
    headers: { "content-type": "text/event-stream" },
  });
}

/** A whole OpenAI chat stream whose content is `text`. */
export function answer(text: string): Response {
  return sseResponse([
    sse({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] }),
    sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
    "data: [DONE]\n\n",
  ]);
}

/** An upstream's 503 with an OpenAI-style error body. */
export function overloaded(): Response {
  return Response.json({ error: { message: "overloaded", type: "server_error" } }, { status: 503 });
}

/** The host a fake upstream request went to. */
export function hostOf(request: SeenRequest): string {
  return new URL(request.url).host;
}

/** `data: <json>\n\n`, optionally with an `event:` name. */
export function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}

/** Resolve-once helper for callbacks a test wants to await. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * A relay on the in-process demo upstream (1 ms per word, 1–5 ms backoff), recording what the
 * demo saw: every request, and the first cancel.
 */
export function demoRelay(options: Omit<RelayOptions, "upstreams" | "fetch"> = {}): {
  app: Hono;
  requests: Array<{ attempt: number; faults: string }>;
  cancelled: Promise<{ attempt: number; wordsSent: number }>;
} {
  const requests: Array<{ attempt: number; faults: string }> = [];
  const cancelled = deferred<{ attempt: number; wordsSent: number }>();
  const app = createDemoRelay({ retry: { initialDelayMs: 1, maxDelayMs: 5 }, ...options }, {
    wordDelayMs: 1,
    onRequest: (info) => requests.push(info),
    onCancel: (info) => cancelled.resolve(info),
  });
  return { app, requests, cancelled: cancelled.promise };
}
