import type { StreamChatOptions } from "../core/chat_options.ts";
import type { ChatResult, StreamEvent } from "../core/chat_result.ts";
import { Call } from "./call.ts";
import { planCall } from "./plan.ts";

/**
 * A streaming chat call: iterate it for events, await `result` for the answer, or both.
 * Nothing is sent until one is used; breaking out of a `for await` stops the call.
 *
 * @example
 * ```ts
 * const stream = streamChat({ baseURL, body, signal: controller.signal });
 * for await (const event of stream) if (event.type === "text") console.log(event.text);
 * const result = await stream.result;
 * ```
 */
export class ChatStream implements AsyncIterable<StreamEvent> {
  readonly #call: Call;

  /** The same as `streamChat(options)`. */
  constructor(options: StreamChatOptions) {
    this.#call = new Call(planCall(options));
  }

  /** The assembled answer. Awaiting it alone drives the stream to its end. */
  get result(): Promise<ChatResult> {
    return this.#call.result;
  }

  /** Iterates the events, once; not allowed with `onPartial: "retry"` (it would repeat output). */
  [Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    return this.#call[Symbol.asyncIterator]();
  }
}

/**
 * Streams one chat answer; nothing is sent until you iterate the stream or await `result`.
 * Transient failures are retried before any content arrives; `signal` stops everything at once.
 *
 * @example
 * ```ts
 * const stream = streamChat({ baseURL: "https://api.openai.com/v1", apiKey, body });
 * for await (const event of stream) if (event.type === "text") console.log(event.text);
 * ```
 */
export function streamChat(options: StreamChatOptions): ChatStream {
  return new ChatStream(options);
}
