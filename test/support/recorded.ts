/**
 * Reading the recorded provider streams of `test/recorded/` (sources in its SOURCES.md) for
 * tests that serve them, whole or cut, to `streamChat`.
 *
 * @module
 */

import { readFileSync } from "node:fs";

/**
 * The text of the recording `name` (`anthropic/text.sse`, …).
 *
 * @example
 * ```ts
 * const sse = recording("chat/openai_text.sse");
 * ```
 */
export function recording(name: string): string {
  return readFileSync(new URL(`../recorded/${name}`, import.meta.url), "utf8");
}

/**
 * The SSE events of a recording, each with its blank line, to cut or splice.
 *
 * @example
 * ```ts
 * const first = recordedEvents("anthropic/text.sse")[0];
 * ```
 */
export function recordedEvents(name: string): string[] {
  return recording(name).split("\n\n").filter((block) => block.trim() !== "")
    .map((block) => `${block}\n\n`);
}

/**
 * A `fetch` that answers every request with `body` as an SSE stream.
 *
 * @example
 * ```ts
 * streamChat({ baseURL: "https://recorded.test/v1", body: {}, fetch: answering(sse) });
 * ```
 */
export function answering(body: string): typeof fetch {
  return () =>
    Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } }));
}
