/**
 * The relay's streaming answer when the relay itself fails while writing it (a bug, not the
 * upstream): the caller gets an error event and the end of the stream, never a stream kept open
 * by keep-alives for good, and the upstream call is stopped. Driven through `sseResponse` with a
 * call whose encoder throws on the first content.
 */

import { expect, test } from "vitest";
import type { Call } from "../../src/client/internal.ts";
import { type ChunkEncoder, DONE_EVENT, type RelayItem } from "../../src/relay/chunks.ts";
import { errorEvent } from "../../src/relay/error_response.ts";
import { sseResponse } from "../../src/relay/sse_response.ts";

test("an exception while writing the answer ends it with an error event and stops the call", async () => {
  const events = [{ type: "open" }, { type: "text", text: "Hi" }];
  const stream = {
    backlogged: false,
    async *[Symbol.asyncIterator]() {
      yield* events;
      await new Promise(() => {}); // the upstream goes on (nothing more to read here)
    },
  } as unknown as Call<RelayItem>;
  const encoder = {
    started: false,
    takeBytes: () => undefined,
    done: DONE_EVENT,
    fail: errorEvent,
    keepAlive: () => ": keep-alive\n",
    encode(event: { type: string }): string {
      if (event.type === "open") return "";
      throw new TypeError("a bug in the encoder");
    },
  } as unknown as ChunkEncoder;
  const abort = new AbortController();
  const response = await sseResponse({
    stream,
    abort,
    encoder,
    keepAliveMs: 15_000,
    secrets: [],
    attempts: () => 1,
  });
  expect(response.status).toBe(200);
  const text = await response.text(); // ends: before the fix, keep-alives for ever
  expect(text).toMatch(/^: keep-alive\ndata: \{"error":\{/);
  expect(text).not.toContain("[DONE]");
  expect(text).not.toContain("a bug in the encoder"); // the relay's sentence, not the exception
  expect(abort.signal.aborted).toBe(true);
});
