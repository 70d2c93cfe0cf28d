/**
 * Helpers shared by the demo upstream and fault handler tests: request builders and a raw SSE
 * reader that keeps comments (pings) and the exact order of events.
 *
 * @module
 */

import { createDemoUpstream } from "../../src/apps/demo/upstream.ts";

/** One SSE block: a `data:` payload or a `:` comment. */
export type RawEvent = { kind: "data"; data: string } | { kind: "comment"; text: string };

/**
 * Build a chat completions request for the demo model.
 *
 * @example
 * ```ts
 * const req = chatRequest({ stream: true }, { "x-demo-fault": "status=503" });
 * ```
 */
export function chatRequest(
  body: Record<string, unknown> = {},
  headers: Record<string, string> = {},
  url = "http://demo.test/v1/chat/completions",
): Request {
  return new Request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({
      model: "demo",
      messages: [{ role: "user", content: "Tell me about streams" }],
      ...body,
    }),
  });
}

/**
 * Split raw SSE text into events, keeping comments.
 *
 * @example
 * ```ts
 * parseRaw("data: 1\n\n: ping\n\n"); // [{ kind: "data", data: "1" }, { kind: "comment", text: "ping" }]
 * ```
 */
export function parseRaw(text: string): RawEvent[] {
  const events: RawEvent[] = [];
  for (const block of text.split("\n\n")) {
    if (block === "") continue;
    if (block.startsWith(":")) events.push({ kind: "comment", text: block.slice(1).trim() });
    else if (block.startsWith("data: ")) events.push({ kind: "data", data: block.slice(6) });
    else throw new Error(`unexpected SSE block ${JSON.stringify(block)}`);
  }
  return events;
}

/**
 * Read a body to the end, returning the text received and the error that ended it, if any.
 *
 * @example
 * ```ts
 * const { text, error } = await readBody(response.body!);
 * ```
 */
export async function readBody(
  body: ReadableStream<Uint8Array>,
): Promise<{ text: string; error: unknown }> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, error: undefined };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

/**
 * The JSON chunks of a raw stream (everything but comments and `[DONE]`).
 *
 * @example
 * ```ts
 * const chunks = jsonChunks(parseRaw(text));
 * ```
 */
// deno-lint-ignore no-explicit-any
export function jsonChunks(events: RawEvent[]): any[] {
  return events.flatMap((event) =>
    event.kind === "data" && event.data !== "[DONE]" ? [JSON.parse(event.data)] : []
  );
}

/**
 * Concatenate a field of every chunk's first delta.
 *
 * @example
 * ```ts
 * joinDeltas(chunks, "content");
 * ```
 */
// deno-lint-ignore no-explicit-any
export function joinDeltas(chunks: any[], field: "content" | "reasoning_content"): string {
  return chunks.map((chunk) => chunk.choices?.[0]?.delta?.[field] ?? "").join("");
}

/**
 * A promise with its resolver, for awaiting callbacks.
 *
 * @example
 * ```ts
 * const seen = deferred<number>();
 * ```
 */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A demo upstream that records what it saw: `onRequest` and `onCancel` calls, in order. */
export interface CountedDemo {
  handler: (request: Request) => Promise<Response>;
  seen: { attempt: number; faults: string }[];
  cancels: { attempt: number; wordsSent: number }[];
}

/**
 * A demo upstream (`wordDelayMs` between words, 0 by default) that records its requests and
 * cancels.
 *
 * @example
 * ```ts
 * const demo = counted();
 * await demo.handler(chatRequest({ stream: true }));
 * demo.seen.length; // 1
 * ```
 */
export function counted(wordDelayMs = 0): CountedDemo {
  const seen: CountedDemo["seen"] = [];
  const cancels: CountedDemo["cancels"] = [];
  const handler = createDemoUpstream({
    wordDelayMs,
    onRequest: (info) => seen.push(info),
    onCancel: (info) => cancels.push(info),
  });
  return { handler, seen, cancels };
}
