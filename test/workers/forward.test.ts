// The relay's fast path in workerd, from a real socket: an `openai-chat` upstream (the fault
// server, over loopback TCP) read in 64 KiB BYOB reads, its events forwarded once the answer
// has begun — and the relay's guarantees around it: retries before content, the relay's error
// event after it, the upstream cancelled when the caller leaves. (Byte-for-byte forwarding and
// the cases a fake upstream can script: test/unit/relay_forward.test.ts.)
import { inject, it } from "vitest";
import { expect } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import { type PieceTap, readInPieces } from "../../src/relay/upstream_body.ts";
import { chatBody, contentOf, parseSSE, postChat } from "./helpers.ts";

const origin = inject("faultOrigin");
let n = 0;

/** A relay whose one upstream is the fault server with `spec`, and the test id to ask it about. */
function relayTo(spec: string) {
  const id = `forward-${Date.now()}-${n++}`;
  const app = createRelay({
    upstreams: [{ baseURL: `${origin}/t/${id}/f/${encodeURIComponent(spec)}/v1` }],
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
  });
  return { app, id };
}

async function statsOf(id: string, atLeast: Record<string, number> = {}) {
  const query = new URLSearchParams(Object.entries(atLeast).map(([k, v]) => [k, String(v)]));
  return await (await fetch(`${origin}/t/${id}/stats?${query}`)).json();
}

/** What the upstream itself sends for `spec`, read directly. */
async function direct(spec: string) {
  const url = `${origin}/t/direct-${Date.now()}-${n++}/f/${encodeURIComponent(spec)}/v1`;
  const response = await fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(chatBody({ stream: true })),
  });
  return parseSSE(await response.text());
}

it("a long answer arrives whole, every chunk with the upstream's id", async () => {
  const spec = "words=1200,word-delay=0";
  const { app, id } = relayTo(spec);
  const response = await postChat(app, chatBody({ stream: true }));
  const body = parseSSE(await response.text());
  const upstream = await direct(spec);
  expect(body.raw.length).toBeGreaterThan(3 * 64 * 1024); // several 64 KiB reads
  expect(contentOf(body)).toBe(contentOf(upstream));
  expect(new Set(body.data.map((c) => c.id))).toEqual(new Set([upstream.data[0]!.id]));
  expect(body.done).toBe(true);
  expect(await statsOf(id)).toEqual({ requests: 1, cancelled: 0, completed: 1 });
});

it("a drop before content is retried; the caller sees one answer", async () => {
  const { app, id } = relayTo("words=40,word-delay=0,attempt1=drop-after:0");
  const body = parseSSE(await (await postChat(app, chatBody({ stream: true }))).text());
  expect(contentOf(body)).toBe(contentOf(await direct("words=40,word-delay=0")));
  expect(body.done).toBe(true);
  expect((await statsOf(id)).requests).toBe(2);
});

it("a drop after content ends with the relay's error event and no [DONE]", async () => {
  const { app, id } = relayTo("words=40,word-delay=0,drop-after=20");
  const body = parseSSE(await (await postChat(app, chatBody({ stream: true }))).text());
  expect(contentOf(body).split(" ").length).toBe(20);
  expect(body.done).toBe(false);
  expect(body.data.at(-1)).toEqual({
    error: expect.objectContaining({ code: "incomplete_stream" }),
  });
  expect((await statsOf(id)).requests).toBe(1);
});

it("an error event after content ends with the relay's error event, not the upstream's", async () => {
  const { app } = relayTo("words=40,word-delay=0,error-event-after=20");
  const raw = await (await postChat(app, chatBody({ stream: true }))).text();
  const body = parseSSE(raw);
  expect(body.done).toBe(false);
  expect(body.data.at(-1)).toEqual({
    error: expect.objectContaining({ code: "incomplete_stream", type: "upstream_error" }),
  });
  expect(body.data.filter((c) => "error" in c)).toHaveLength(1);
});

it("a caller who leaves mid-answer cancels the upstream request", async () => {
  const { app, id } = relayTo("words=2000,word-delay=2");
  const reader = (await postChat(app, chatBody({ stream: true }))).body!.getReader();
  for (let i = 0; i < 5; i++) await reader.read();
  await reader.cancel();
  expect(await statsOf(id, { cancelled: 1 })).toEqual({
    requests: 1,
    cancelled: 1,
    completed: 0,
  });
});

it("paced content takes one read of the upstream per event while coalescing, two without", async () => {
  // workerd hands each chunk of a chunked body over in two reads (its first 26-28 bytes, then
  // the rest); a read that waits for 32 bytes at an event's start makes it one. Each event here
  // is a chunk of its own, 10 ms apart.
  const reads: Record<string, number> = {};
  let events = 0;
  for (const coalesce of [false, true]) {
    const url = `${origin}/t/reads-${Date.now()}-${n++}/f/words=20,word-delay=10/v1`;
    const tap: PieceTap = { seq: 0, bytes: undefined, coalesce, reads: 0 };
    const response = readInPieces(
      await fetch(`${url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(chatBody({ stream: true })),
      }),
      tap,
    );
    // The body handed on is a reader of pieces (upstream_body.ts), not a ReadableStream.
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      text += decoder.decode(r.value, { stream: true });
    }
    events = parseSSE(text).data.length + 1; // and [DONE]
    reads[String(coalesce)] = tap.reads;
  }
  expect(events).toBeGreaterThan(20);
  expect(reads["true"]).toBeLessThanOrEqual(events + 2); // one a chunk, and the body's end
  expect(reads["false"]).toBeGreaterThan(reads["true"]! + events / 2);
});
