// In-memory delivery: a `fetch` that answers every request with a fresh `Response` whose body
// replays a prebuilt stream, either in random 1–16 KiB network-sized chunks (fixed seed) or
// one SSE event per chunk. Chunks are views on one buffer, so delivery costs no copies.

import { prng } from "./streams.mjs";

/** Slices `bytes` into random 1–16 KiB views, the same for a given seed. */
export function networkChunks(bytes, seed) {
  const rand = prng(seed);
  const chunks = [];
  for (let at = 0; at < bytes.length;) {
    const size = 1024 + ((rand() * 15 * 1024) | 0);
    chunks.push(bytes.subarray(at, Math.min(at + size, bytes.length)));
    at += size;
  }
  return chunks;
}

/** One view per SSE event. */
export function eventChunks(bytes, offsets) {
  const chunks = new Array(offsets.length - 1);
  for (let i = 1; i < offsets.length; i++) {
    chunks[i - 1] = bytes.subarray(offsets[i - 1], offsets[i]);
  }
  return chunks;
}

/** A body that hands out one chunk per pull, like a socket that always has data ready. */
export function replayBody(chunks) {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  }, { highWaterMark: 0 });
}

/**
 * A `fetch` replaying `chunks` as a 200 `text/event-stream` for every call. It honours the
 * request's signal the way a real fetch does: an abort errors the body.
 */
export function replayFetch(chunks) {
  return (_input, init) => {
    const signal = init?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return Promise.resolve(
      new Response(replayBody(chunks), {
        status: 200,
        headers: { "content-type": "text/event-stream; charset=utf-8" },
      }),
    );
  };
}

/** Chunks for a delivery mode: `chunked` (1–16 KiB, seeded) or `event` (one event per chunk). */
export function chunksFor(delivery, data, seed) {
  if (delivery === "chunked") return networkChunks(data.bytes, seed);
  if (delivery === "event") return eventChunks(data.bytes, data.offsets);
  throw new TypeError(`not an in-memory delivery: ${delivery}`);
}
