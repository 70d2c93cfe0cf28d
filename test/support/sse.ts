/**
 * Test helpers for building OpenAI-style SSE streams: chunk objects, SSE text, scripted response
 * bodies (paced, held open, cut off, pull-counted) and a collector for a `ChatStream`.
 *
 * @module
 */

import type { ChatStream } from "../../src/client/stream_chat.ts";
import type { ChatResult, StreamEvent } from "../../src/core/chat_result.ts";

const encoder = new TextEncoder();

/** The terminal event of an OpenAI chat completions stream. */
export const DONE = "data: [DONE]\n\n";
/** A keep-alive comment (not progress). */
export const PING = ": ping\n\n";

/**
 * One SSE event: `data: <json>` (strings are sent as they are), with an optional `event:` line.
 *
 * @example
 * ```ts
 * sse({ error: { message: "Network connection lost." } }); // 'data: {"error":…}\n\n'
 * ```
 */
export function sse(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${payload}\n\n`;
}

/**
 * A `chat.completion.chunk` for choice 0.
 *
 * @example
 * ```ts
 * chunk({ content: "Hi" }); chunk({}, "stop");
 * ```
 */
export function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-test",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  };
}

/**
 * The usage chunk sent last when `stream_options.include_usage` is set (empty `choices`).
 *
 * @example
 * ```ts
 * usageChunk({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
 * ```
 */
export function usageChunk(usage: Record<string, unknown>): Record<string, unknown> {
  return {
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-test",
    choices: [],
    usage,
  };
}

/** Options of {@link openAIText}. */
export interface TextStreamOptions {
  /** `null` sends no finish chunk. Default `"stop"`. */
  finish?: string | null;
  /** Whether `[DONE]` ends the stream. Default true. */
  done?: boolean;
  usage?: Record<string, unknown>;
}

/**
 * A complete OpenAI stream whose answer is `parts` joined: role chunk, one chunk per part,
 * finish chunk, optional usage chunk, `[DONE]`.
 *
 * @example
 * ```ts
 * openAIText(["o", "k"]); // a healthy stream answering "ok"
 * ```
 */
export function openAIText(parts: string[], options: TextStreamOptions = {}): string {
  const { finish = "stop", done = true, usage } = options;
  let text = sse(chunk({ role: "assistant", content: "" }));
  for (const part of parts) text += sse(chunk({ content: part }));
  if (finish !== null) text += sse(chunk({}, finish));
  if (usage !== undefined) text += sse(usageChunk(usage));
  return done ? text + DONE : text;
}

/**
 * One step of a scripted body: a chunk to send (string or bytes), a pause, a wait on a
 * promise, a callback run when the reader gets there (`{ run }`: the reader has asked for more
 * after the previous chunk), a cut connection (`{ error }`), or `{ hold: true }` (stay open,
 * send nothing, until the request is aborted or the body cancelled).
 */
export type Step =
  | string
  | Uint8Array
  | { delayMs: number }
  | { until: Promise<unknown> }
  | { run: () => void }
  | { error: unknown }
  | { hold: true };

/**
 * A scripted response body and what happened to it.
 *
 * @example
 * ```ts
 * const body = scriptedBody([sse(chunk({ content: "a" })), { hold: true }]);
 * new Response(body.stream); await body.cancelled;
 * ```
 */
export interface ScriptedBody {
  stream: ReadableStream<Uint8Array>;
  /** How many times the consumer pulled a chunk from the source. */
  readonly pulls: number;
  /** How many chunks were enqueued. */
  readonly sent: number;
  /** Resolves with the reason when the reader cancelled the body (not seen through MSW). */
  cancelled: Promise<unknown>;
}

/**
 * A pull-based body that plays `steps` in order, one chunk per pull, then closes. Nothing is
 * produced ahead of the reader (high-water mark 0), so `pulls` measures what the reader asked
 * for. `signal` (e.g. the mocked request's) stops a paused or held body: MSW does not forward a
 * cancel, and a body that keeps flowing after the test would leak timers.
 *
 * @example
 * ```ts
 * const body = scriptedBody(["data: {}\n\n", { delayMs: 5 }, DONE]);
 * ```
 */
export function scriptedBody(steps: readonly Step[], signal?: AbortSignal): ScriptedBody {
  let index = 0;
  let pulls = 0;
  let sent = 0;
  let stopped = false;
  let onCancel!: (reason: unknown) => void;
  const cancelled = new Promise<unknown>((resolve) => (onCancel = resolve));
  const aborted = new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  const waitOrAbort = (promise: Promise<unknown>): Promise<unknown> =>
    Promise.race([promise, aborted, cancelled]);
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      pulls++;
      while (!stopped) {
        if (signal?.aborted) {
          stopped = true;
          // The client went away: end quietly, as a server would after a closed socket.
          return controller.error(new Error("request aborted"));
        }
        const step = steps[index++];
        if (step === undefined) {
          stopped = true;
          return controller.close();
        }
        if (typeof step === "string") {
          sent++;
          return controller.enqueue(encoder.encode(step));
        }
        if (step instanceof Uint8Array) {
          sent++;
          return controller.enqueue(step);
        }
        if ("delayMs" in step) await waitOrAbort(delay(step.delayMs));
        else if ("until" in step) await waitOrAbort(step.until);
        else if ("run" in step) step.run();
        else if ("hold" in step) {
          await waitOrAbort(new Promise(() => {}));
          index--; // stay on the hold until aborted or cancelled
        } else {
          stopped = true;
          return controller.error(step.error);
        }
      }
    },
    cancel(reason) {
      stopped = true;
      onCancel(reason);
    },
  }, { highWaterMark: 0 });
  return {
    stream,
    get pulls() {
      return pulls;
    },
    get sent() {
      return sent;
    },
    cancelled,
  };
}

/**
 * Bytes of `text` split at `cuts` (sorted byte offsets), as body steps.
 *
 * @example
 * ```ts
 * splitBytes("data: é\n\n", [7]); // cuts inside the two bytes of "é"
 * ```
 */
export function splitBytes(text: string | Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const bytes = typeof text === "string" ? encoder.encode(text) : text;
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    if (cut <= start || cut >= bytes.length) continue;
    parts.push(bytes.slice(start, cut));
    start = cut;
  }
  parts.push(bytes.slice(start));
  return parts;
}

/**
 * A `setTimeout` promise: only for pacing fixtures, never to wait for the code under test.
 *
 * @example
 * ```ts
 * await delay(5);
 * ```
 */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Everything one iteration of a stream produced: the events, and the result or the error.
 *
 * @example
 * ```ts
 * const { events, result, error } = await collect(streamChat(options));
 * ```
 */
export interface Collected {
  events: StreamEvent[];
  result?: ChatResult;
  error?: unknown;
}

/**
 * Iterates `stream` to its end, keeping every event; then awaits `result`.
 *
 * @example
 * ```ts
 * const { events, result } = await collect(stream);
 * ```
 */
export async function collect(
  stream: ChatStream,
  onEvent?: (event: StreamEvent) => void,
): Promise<Collected> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of stream) {
      events.push(event);
      onEvent?.(event);
    }
  } catch (error) {
    return { events, error };
  }
  return { events, result: await stream.result };
}

/**
 * The events of `type`, narrowed.
 *
 * @example
 * ```ts
 * ofType(events, "retry").map((e) => e.attempt);
 * ```
 */
export function ofType<T extends StreamEvent["type"]>(
  events: readonly StreamEvent[],
  type: T,
): Extract<StreamEvent, { type: T }>[] {
  return events.filter((event): event is Extract<StreamEvent, { type: T }> => event.type === type);
}

// Taken before a test can install a fake clock (test/support/clock.ts): "the next macrotask"
// stays a real one.
const realSetTimeout = globalThis.setTimeout;

/**
 * Settles with the outcome of `promise` if it settles before the next macrotask, else with
 * `"pending"`. Proves that something happened in the same turn, without a timer to wait out.
 *
 * @example
 * ```ts
 * controller.abort();
 * expect(await settlesNow(stream.result)).toMatchObject({ rejected: expect.any(Error) });
 * ```
 */
export function settlesNow(
  promise: Promise<unknown>,
): Promise<{ resolved: unknown } | { rejected: unknown } | "pending"> {
  return Promise.race([
    promise.then((resolved) => ({ resolved }), (rejected) => ({ rejected })),
    new Promise<"pending">((resolve) => realSetTimeout(() => resolve("pending"), 0)),
  ]);
}

/**
 * Wraps `signal.addEventListener`/`removeEventListener` and returns how many `abort`
 * listeners are registered right now.
 *
 * @example
 * ```ts
 * const listeners = trackListeners(controller.signal);
 * await streamChat({ …, signal: controller.signal }).result;
 * expect(listeners()).toBe(0);
 * ```
 */
export function trackListeners(signal: AbortSignal): () => number {
  const live = new Set<unknown>();
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = ((...args: Parameters<AbortSignal["addEventListener"]>) => {
    if (args[0] === "abort") live.add(args[1]);
    add(...args);
  }) as AbortSignal["addEventListener"];
  signal.removeEventListener = ((...args: Parameters<AbortSignal["removeEventListener"]>) => {
    if (args[0] === "abort") live.delete(args[1]);
    remove(...args);
  }) as AbortSignal["removeEventListener"];
  return () => live.size;
}
