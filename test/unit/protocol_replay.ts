/**
 * Replaying recorded streams from `test/unit/fixtures/`, cut into arbitrary pieces.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { HttpResponse } from "msw";

const encoder = new TextEncoder();

/**
 * A recorded stream from `test/unit/fixtures/`.
 *
 * @example
 * ```ts
 * const text = fixture("anthropic_text.sse");
 * ```
 */
export function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
}

/**
 * An SSE response that sends `text` cut at the given character offsets (one piece per read),
 * so a test can check that chunk boundaries do not matter.
 *
 * @example
 * ```ts
 * return chunkedResponse(fixture("responses_text.sse"), [10, 200]);
 * ```
 */
export function chunkedResponse(text: string, cuts: number[] = []): Response {
  const bytes = encoder.encode(text);
  const points = [...new Set(cuts.map((c) => Math.min(Math.max(0, c), bytes.length)))]
    .sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    if (point > from) pieces.push(bytes.subarray(from, point));
    from = point;
  }
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < pieces.length) controller.enqueue(pieces[next++]!);
      else controller.close();
    },
  }, { highWaterMark: 0 });
  return new HttpResponse(body, { headers: { "content-type": "text/event-stream" } });
}
