import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { streamChat } from "../../src/client/stream_chat.ts";
import { collect, type Collected, scriptedBody, splitBytes } from "../support/sse.ts";
import { seedFor } from "../support/seed.ts";

// Chunk-boundary invariance: however the network splits a recorded stream — down to single
// bytes, inside multi-byte UTF-8 characters, between the CR and LF of a line end — the events
// and the result are the same. An injected fetch serves the chunks (MSW adds nothing here).

const SEED = seedFor("core_property");

const FIXTURES = [
  "openai_text.sse",
  "openai_tools.sse",
  "openrouter_reasoning.sse",
  "deepseek_reasoning.sse",
  "ollama_tools.sse",
  "openai_refusal.sse",
];
const encoder = new TextEncoder();

function fixture(name: string): string {
  return readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8");
}

/** Streams `chunks` through `streamChat` with an injected fetch; one request, asserted. */
async function play(chunks: Uint8Array[]): Promise<Collected> {
  let calls = 0;
  const body = scriptedBody(chunks);
  const fetchFn: typeof fetch = () => {
    calls++;
    return Promise.resolve(
      new Response(body.stream, { headers: { "content-type": "text/event-stream" } }),
    );
  };
  const collected = await collect(
    streamChat({
      baseURL: "https://llm.test/v1",
      body: { model: "m", messages: [] },
      fetch: fetchFn,
    }),
  );
  expect(calls).toBe(1);
  expect(body.sent).toBe(chunks.length);
  // When the request ran differs from run to run; the finish event holds the same object.
  delete collected.result?.trace;
  return collected;
}

/** Offsets where a cut is most likely to break a naive parser: mid-character, mid-CRLF. */
function trickyOffsets(bytes: Uint8Array): number[] {
  const offsets: number[] = [];
  for (let i = 1; i < bytes.length; i++) {
    const continuation = (bytes[i]! & 0xc0) === 0x80;
    const crlf = bytes[i - 1] === 13 && bytes[i] === 10;
    if (continuation || crlf) offsets.push(i);
  }
  return offsets;
}

const variants = FIXTURES.flatMap((name) => [
  { name, text: fixture(name) },
  { name: `${name} (CRLF)`, text: fixture(name).replaceAll("\n", "\r\n") },
]);

describe("any split of a recorded stream yields the same events and result", () => {
  test.each(variants)("$name", async ({ text }) => {
    const bytes = encoder.encode(text);
    const tricky = trickyOffsets(bytes);
    const whole = await play([bytes]);
    expect(whole.error).toBeUndefined();
    expect(whole.result?.finishReason).toBeTruthy();

    // Single bytes, every one.
    const single = await play(splitBytes(bytes, Array.from({ length: bytes.length }, (_, i) => i)));
    expect(single).toEqual(whole);

    const anywhere = fc.integer({ min: 1, max: bytes.length - 1 });
    const cut = tricky.length === 0 ? anywhere : fc.oneof(anywhere, fc.constantFrom(...tricky));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(cut, { maxLength: 60 }), async (cuts) => {
        const split = await play(splitBytes(bytes, cuts));
        expect(split).toEqual(whole);
      }),
      { seed: SEED, numRuns: 100 },
    );
  });
});
