/**
 * Replaying recorded streams from `test/unit/fixtures/`, cut into arbitrary pieces.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import fc from "fast-check";
import { HttpResponse } from "msw";
import type { SetupServerApi } from "msw/node";
import { expect } from "vitest";
import { streamChat, type StreamChatOptions } from "../../src/index.ts";
import { seedFor } from "../support/seed.ts";
import { type Upstream, upstream, type WireFixture } from "./protocol_wire.ts";

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

/**
 * Returns `replay(...names)`: mounts an upstream on `server` that answers the n-th request
 * with the recorded stream `names[n - 1]`, unsplit (the last one answers every later request).
 *
 * @example
 * ```ts
 * const replay = replayer(server, BASE, anthropicWire);
 * const up = replay("anthropic_error.sse", "anthropic_text.sse");
 * ```
 */
export function replayer(
  server: SetupServerApi,
  baseURL: string,
  wire: WireFixture,
): (...names: [string, ...string[]]) => Upstream {
  return (...names) =>
    upstream(
      server,
      baseURL,
      wire,
      (n) => chunkedResponse(fixture(names[Math.min(n, names.length) - 1]!)),
    );
}

/**
 * Property: any split of each recorded stream in `names` (up to 12 cuts below `maxCut`) gives
 * the result of the unsplit stream. 40 runs with the run's seed (logged; test/support/seed.ts);
 * asserts one request per run.
 *
 * @example
 * ```ts
 * await expectSplitInvariant(server, BASE, responsesWire, ["responses_text.sse"], 8000, options);
 * ```
 */
export async function expectSplitInvariant(
  server: SetupServerApi,
  baseURL: string,
  wire: WireFixture,
  names: string[],
  maxCut: number,
  options: () => StreamChatOptions,
): Promise<void> {
  const expected = new Map<string, unknown>();
  for (const name of names) {
    upstream(server, baseURL, wire, () => chunkedResponse(fixture(name)));
    const { attempts: _, trace: _t, ...result } = await streamChat(options()).result;
    expected.set(name, result);
  }
  let requests = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...names),
      fc.array(fc.nat({ max: maxCut }), { maxLength: 12 }),
      async (name, cuts) => {
        upstream(server, baseURL, wire, () => {
          requests++;
          return chunkedResponse(fixture(name), cuts);
        });
        const { attempts: _, trace: _t, ...result } = await streamChat(options()).result;
        expect(result).toEqual(expected.get(name));
      },
    ),
    { numRuns: 40, seed: seedFor(`split invariance of ${names.join(", ")}`) },
  );
  expect(requests).toBe(40);
}
