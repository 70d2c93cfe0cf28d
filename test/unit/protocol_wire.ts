/**
 * Shared by the protocol, fallback and partial-stream tests: a stream builder per wire
 * protocol (so one fault suite runs against all three), a scripted MSW upstream that records
 * what it received, and an event collector.
 *
 * @module
 */

import { http, HttpResponse } from "msw";
import type { SetupServerApi } from "msw/node";
import type {
  ChatResult,
  ChatStream,
  ProtocolName,
  StreamChatOptions,
  StreamEvent,
} from "../../src/index.ts";
import { anthropicWire } from "./fixtures/anthropic_wire.ts";
import { openAIErrorBody } from "./fixtures/openai_error_body.ts";
import { responsesWire } from "./fixtures/responses_wire.ts";

/** Builds one protocol's SSE blocks (each a complete `event:`/`data:` block or comment). */
export interface WireFixture {
  protocol: ProtocolName;
  /** Path appended to the base URL. */
  path: string;
  /** A minimal request body for `model`. */
  body(model: string): Record<string, unknown>;
  /** What precedes the first text (ids, block starts, pings). */
  start(): string[];
  text(text: string): string;
  reasoning(text: string): string;
  /** Starts a tool call and sends a first fragment of its arguments. */
  toolCall(id: string, name: string, json: string): string;
  /** A keep-alive: not progress. */
  ping(): string;
  /** Finish, usage and the terminal event. */
  end(): string[];
  /** An in-stream error event: overloaded/server error, or a request error. */
  streamError(kind: "transient" | "fatal"): string;
  /** The JSON body the provider sends with an HTTP error status. */
  errorBody(status: number): unknown;
}

const CHAT_ID = "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT";
const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}): string =>
  `data: ${
    JSON.stringify({
      id: CHAT_ID,
      object: "chat.completion.chunk",
      created: 1741570283,
      model: "gpt-4o-2024-08-06",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: null }],
      ...extra,
    })
  }\n\n`;

/**
 * The OpenAI-compatible Chat Completions wire (the core protocol), for the same suite.
 *
 * @example
 * ```ts
 * const blocks = [...chatWire.start(), chatWire.text("Hi"), ...chatWire.end()];
 * ```
 */
export const chatWire: WireFixture = {
  protocol: "openai-chat",
  path: "/chat/completions",
  body: (model) => ({ model, messages: [{ role: "user", content: "Hi" }] }),
  start: () => [chunk({ role: "assistant", content: "", refusal: null })],
  text: (content) => chunk({ content }),
  reasoning: (reasoning_content) => chunk({ reasoning_content }),
  toolCall: (id, name, json) =>
    chunk({
      tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: json } }],
    }),
  ping: () => ": ping\n\n",
  end: () => [
    `data: ${
      JSON.stringify({
        id: CHAT_ID,
        object: "chat.completion.chunk",
        model: "gpt-4o-2024-08-06",
        choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
      })
    }\n\n`,
    `data: ${
      JSON.stringify({
        id: CHAT_ID,
        object: "chat.completion.chunk",
        model: "gpt-4o-2024-08-06",
        choices: [],
        usage: { prompt_tokens: 19, completion_tokens: 10, total_tokens: 29 },
      })
    }\n\n`,
    "data: [DONE]\n\n",
  ],
  streamError: (kind) =>
    `data: ${
      JSON.stringify({
        error: kind === "transient"
          ? { message: "The server had an error processing your request.", type: "server_error" }
          : { message: "Invalid 'messages': empty array.", type: "invalid_request_error" },
      })
    }\n\n`,
  errorBody: openAIErrorBody,
};

/** The three wires, for `describe.each`. */
export const WIRES: readonly WireFixture[] = [chatWire, anthropicWire, responsesWire];

/** Retry delays short enough for tests (1–2 ms). */
export const FAST = { initialDelayMs: 1, maxDelayMs: 2 };

/**
 * A whole answer in `wire`'s format: its start, one text event per text, its end.
 *
 * @example
 * ```ts
 * sseResponse(request, answer(anthropicWire, "from ", "Claude"));
 * ```
 */
export function answer(wire: WireFixture, ...texts: string[]): string[] {
  return [...wire.start(), ...texts.map((text) => wire.text(text)), ...wire.end()];
}

/**
 * An `upstream` responder that answers every request with {@link answer}`(wire, ...texts)`.
 *
 * @example
 * ```ts
 * upstream(server, BASE, anthropicWire, answers(anthropicWire, "ok"));
 * ```
 */
export function answers(
  wire: WireFixture,
  ...texts: string[]
): (n: number, request: Request) => Response {
  return (_n, request) => sseResponse(request, answer(wire, ...texts));
}

/**
 * Options for one wire at `baseURL` (key `sk-test` unless given, `wire.body(model)` or the
 * body given, {@link FAST} retries): returns `options(wire, extra)` for a test file.
 *
 * @example
 * ```ts
 * const options = optionsFor("https://llm.test/v1", "m-1");
 * streamChat(options(anthropicWire, { maxRetries: 0 }));
 * ```
 */
export function optionsFor(
  baseURL: string,
  model: string | Record<string, unknown>,
  apiKey = "sk-test",
): (wire: WireFixture, extra?: Partial<StreamChatOptions>) => StreamChatOptions {
  return (wire, extra = {}) => ({
    baseURL,
    apiKey,
    protocol: wire.protocol,
    body: typeof model === "string" ? wire.body(model) : model,
    retry: FAST,
    ...extra,
  });
}

/** How a scripted stream ends after its blocks. */
export type StreamEnd =
  | "close"
  | "drop"
  | "hang"
  | { pingEveryMs: number; pings: WireFixture };

const encoder = new TextEncoder();
const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const aborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });

/**
 * An SSE response that sends `blocks` one per read (1 ms apart), then ends as `end` says:
 * `close`, `drop` (the connection errors), `hang` (nothing more until the client aborts) or
 * pings forever (bounded, and until the client aborts). Pull-based, so an abandoned body
 * stops producing.
 *
 * @example
 * ```ts
 * return sseResponse(request, [...wire.start(), wire.text("Hi")], "drop");
 * ```
 */
export function sseResponse(
  request: Request,
  blocks: string[],
  end: StreamEnd = "close",
): Response {
  let next = 0;
  let pings = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (next < blocks.length) {
        await tick(1);
        controller.enqueue(encoder.encode(blocks[next++]));
      } else if (end === "close") {
        controller.close();
      } else if (end === "drop") {
        controller.error(new TypeError("terminated: other side closed"));
      } else if (end === "hang") {
        await aborted(request.signal);
        controller.close();
      } else if (request.signal.aborted || pings++ > 400) {
        controller.close();
      } else {
        await tick(end.pingEveryMs);
        controller.enqueue(encoder.encode(end.pings.ping()));
      }
    },
  }, { highWaterMark: 0 });
  return new HttpResponse(body, { headers: { "content-type": "text/event-stream" } });
}

/**
 * A JSON error response in the provider's format.
 *
 * @example
 * ```ts
 * return errorResponse(chatWire, 503, { "retry-after-ms": "1" });
 * ```
 */
export function errorResponse(
  wire: WireFixture,
  status: number,
  headers: Record<string, string> = {},
): Response {
  return HttpResponse.json(wire.errorBody(status) as Record<string, unknown>, { status, headers });
}

/** What a scripted upstream received. */
export interface Upstream {
  /** Number of requests received. */
  readonly count: number;
  /** Parsed JSON bodies, in order. */
  readonly bodies: Array<Record<string, unknown>>;
  readonly headers: Headers[];
  /** Resolves when the `n`-th request (1-based) has arrived. */
  arrived(n: number): Promise<void>;
}

/**
 * Mounts `POST {baseURL}{wire.path}` on `server`; `respond` gets the 1-based request number.
 *
 * @example
 * ```ts
 * const up = upstream(server, "https://a.test/v1", chatWire, (n, req) => errorResponse(chatWire, 503));
 * ```
 */
export function upstream(
  server: SetupServerApi,
  baseURL: string,
  wire: WireFixture,
  respond: (n: number, request: Request) => Response | Promise<Response>,
): Upstream {
  const bodies: Array<Record<string, unknown>> = [];
  const headers: Headers[] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  server.use(
    http.post(baseURL + wire.path, async ({ request }) => {
      bodies.push(await request.clone().json());
      headers.push(request.headers);
      const n = bodies.length;
      for (const waiter of waiters) if (waiter.n <= n) waiter.resolve();
      return respond(n, request);
    }),
  );
  return {
    get count() {
      return bodies.length;
    },
    bodies,
    headers,
    arrived: (n) =>
      new Promise((resolve) => {
        if (bodies.length >= n) resolve();
        else waiters.push({ n, resolve });
      }),
  };
}

/** The events of a run, its result or its error, and the joined text events. */
export interface Run {
  events: StreamEvent[];
  text: string;
  result: ChatResult | undefined;
  error: unknown;
}

/**
 * Iterates `stream` to its end, calling `onEvent` for each event (to abort at a chosen one).
 *
 * @example
 * ```ts
 * const run = await collect(streamChat(options));
 * expect(run.text).toBe(run.result?.content);
 * ```
 */
export async function collect(
  stream: ChatStream,
  onEvent?: (event: StreamEvent) => void,
): Promise<Run> {
  const run: Run = { events: [], text: "", result: undefined, error: undefined };
  try {
    for await (const event of stream) {
      run.events.push(event);
      if (event.type === "text") run.text += event.text;
      if (event.type === "finish") run.result = event.result;
      onEvent?.(event);
    }
  } catch (error) {
    run.error = error;
  }
  return run;
}
