/**
 * How the relay reads an upstream event stream (src/relay/upstream_fetch.ts): up to 64 KiB at a
 * time through a BYOB reader, handed on at an event's end, never later than the bytes allow; and
 * a piece whose every event is forwarded (src/relay/forward.ts) goes out as its own bytes.
 * The same body in workerd, from a real socket: test/workers/forward.test.ts.
 */

import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { streamChat } from "../../src/index.ts";
import { EXPECTED } from "../recorded/expected.ts";
import { ChunkEncoder, type RelayEvent } from "../../src/relay/chunks.ts";
import { relayChat } from "../../src/relay/forward.ts";
import { createUpstreamFetch } from "../../src/relay/upstream_fetch.ts";
import { seedFor } from "../support/seed.ts";

const SEED = seedFor("relay_upstream_reads");

const encoder = new TextEncoder();
const SSE = { "content-type": "text/event-stream" };

/**
 * A byte stream (as a fetch body is) that sends `pieces` one per pull, then stays open
 * (`hold`) or closes; `cancelled` resolves with the reason of a cancel.
 */
function byteBody(pieces: Uint8Array[], end: "close" | "hold" | Error = "close") {
  let next = 0;
  let onCancel!: (reason: unknown) => void;
  const cancelled = new Promise<unknown>((resolve) => (onCancel = resolve));
  const stream = new ReadableStream({
    type: "bytes",
    pull(controller) {
      const piece = pieces[next++];
      if (piece !== undefined) return controller.enqueue(piece.slice());
      if (end === "close") {
        controller.close();
        // A BYOB read waiting on a closed byte stream ends only when answered (as a fetch
        // body does).
        return controller.byobRequest?.respond(0);
      }
      if (end instanceof Error) return controller.error(end);
      return new Promise<void>(() => {}); // nothing more, ever
    },
    cancel: onCancel,
  });
  return { stream, cancelled };
}

/** The relay's upstream fetch answering with `response`. */
function fetched(response: Response): Promise<Response> {
  return createUpstreamFetch(() => Promise.resolve(response))
    .fetch("https://up.test/v1/chat/completions");
}

/** Reads `body` to its end; the chunks as they were handed on. */
async function chunksOf(body: ReadableStream<Uint8Array>): Promise<string[]> {
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(decoder.decode(value));
  }
}

/** Byte offsets where `text` can be cut. */
function cuts(length: number) {
  return fc.uniqueArray(fc.integer({ min: 1, max: length - 1 }), { maxLength: 40 })
    .map((c) => c.sort((a, b) => a - b));
}

function split(bytes: Uint8Array, at: number[]): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...at, bytes.length]) {
    parts.push(bytes.subarray(start, cut));
    start = cut;
  }
  return parts;
}

describe("an upstream event stream is read in large pieces, each ending with an event", () => {
  test.each([
    { name: "LF", eol: "\n" },
    { name: "CRLF", eol: "\r\n" },
    { name: "CR", eol: "\r" },
  ])(
    "$name line endings: whatever the pieces, the same bytes, handed on at events' ends",
    async ({ eol }) => {
      const events = ['data: {"a":1}', ": ping", "event: x\ndata: é🙂", "data: [DONE]"]
        .map((e) => e.replaceAll("\n", eol) + eol + eol);
      const text = events.join("").repeat(3);
      const bytes = encoder.encode(text);
      await fc.assert(
        fc.asyncProperty(cuts(bytes.length), async (at) => {
          const { stream } = byteBody(split(bytes, at));
          const response = await fetched(new Response(stream, { headers: SSE }));
          const chunks = await chunksOf(response.body!);
          expect(chunks.join("")).toBe(text);
          // Every piece but the last ends where an event does (with CRLF, the CR of the blank
          // line already ends it: SSE takes a lone CR as a line ending).
          const ends = eol === "\r\n" ? /\r\n\r\n?$/ : new RegExp(`${eol}${eol}$`);
          for (const chunk of chunks.slice(0, -1)) expect(chunk).toMatch(ends);
        }),
        { seed: SEED, numRuns: 80 },
      );
    },
  );

  test("a stream longer than the buffer: the same bytes, pieces of at most 64 KiB ending with events", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 3000 }), { minLength: 50, maxLength: 200 }),
        fc.integer({ min: 0, max: 70_000 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 400_000 }), { maxLength: 20 }),
        async (sizes, huge, at) => {
          // Events of random sizes, one of them maybe longer than the buffer.
          const events = sizes.map((n, i) => `data: ${"x".repeat(i === 7 ? huge : n)}\n\n`);
          const bytes = encoder.encode(events.join(""));
          const { stream } = byteBody(
            split(bytes, at.filter((c) => c < bytes.length).sort((a, b) => a - b)),
          );
          const response = await fetched(new Response(stream, { headers: SSE }));
          const chunks = await chunksOf(response.body!);
          expect(chunks.join("")).toBe(events.join(""));
          const inHuge = huge > 64 * 1024 ? events[7]! : undefined;
          for (const chunk of chunks.slice(0, -1)) {
            expect(encoder.encode(chunk).byteLength).toBeLessThanOrEqual(64 * 1024);
            if (inHuge === undefined || !inHuge.includes(chunk)) expect(chunk).toMatch(/\n\n$/);
          }
        },
      ),
      { seed: SEED, numRuns: 30 },
    );
  });

  test("a whole event is handed on at once, without waiting for more bytes", async () => {
    const { stream } = byteBody(
      [encoder.encode('data: {"a":'), encoder.encode("1}\n\n")],
      "hold",
    );
    const response = await fetched(new Response(stream, { headers: SSE }));
    const { value } = await response.body!.getReader().read();
    expect(new TextDecoder().decode(value)).toBe('data: {"a":1}\n\n');
  });

  test("an event longer than 64 KiB comes in 64 KiB pieces, and its end as soon as it arrives", async () => {
    // The blank line straddles the first 64 KiB: the piece after it cannot be held for more.
    const event = `data: ${"x".repeat(64 * 1024 - 7)}\n\n`;
    const { stream } = byteBody([encoder.encode(event)], "hold");
    const response = await fetched(new Response(stream, { headers: SSE }));
    const reader = response.body!.getReader();
    const first = (await reader.read()).value!;
    expect(first.byteLength).toBe(64 * 1024);
    const second = new TextDecoder().decode((await reader.read()).value);
    expect(second).toBe("\n");
  });

  test("cancelling the body cancels the upstream's, with the reason", async () => {
    const { stream, cancelled } = byteBody([encoder.encode("data: 1\n\n")], "hold");
    const response = await fetched(new Response(stream, { headers: SSE }));
    const reader = response.body!.getReader();
    await reader.read();
    const reason = new Error("caller gone");
    await reader.cancel(reason);
    expect(await cancelled).toBe(reason);
  });

  test("an upstream read that fails fails the body", async () => {
    const lost = new TypeError("network connection lost");
    const { stream } = byteBody([encoder.encode("data: 1\n\n")], lost);
    const response = await fetched(new Response(stream, { headers: SSE }));
    await expect(chunksOf(response.body!)).rejects.toBe(lost);
  });

  test("anything but a 200 event stream with a byte-stream body is passed on as it is", async () => {
    const plain = new ReadableStream({ pull: (c) => c.enqueue(encoder.encode("data: 1\n\n")) });
    for (
      const response of [
        new Response(plain, { headers: SSE }), // not a byte stream: the in-process demo's kind
        new Response('{"error":{}}', { status: 503, headers: SSE }),
        new Response('{"id":"x"}', { headers: { "content-type": "application/json" } }),
        new Response(null, { status: 204 }),
      ]
    ) {
      expect(await fetched(response)).toBe(response);
    }
  });
});

/** An `openai-chat` chunk event with `delta` (and a finish reason). */
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${
    JSON.stringify({ id: "c1", choices: [{ index: 0, delta, finish_reason: finish }] })
  }\n\n`;
const text = (t: string) => chunk({ content: t });

/** A relayed call (the fast path on) whose upstream sends `pieces`, one per pull, then `end`. */
function relayed(pieces: string[], end: "close" | "hold" = "close", idleMs?: number) {
  const { stream, cancelled } = byteBody(pieces.map((p) => encoder.encode(p)), end);
  const upstream = createUpstreamFetch(
    () => Promise.resolve(new Response(stream, { headers: SSE })),
  );
  const chat = relayChat(
    {
      baseURL: "https://up.test/v1",
      body: { model: "m", messages: [] },
      fetch: upstream.fetch,
      maxRetries: 0,
      ...(idleMs === undefined ? {} : { timeouts: { idleMs } }),
    },
    new ChunkEncoder("chatcmpl-relay", "m", false),
    upstream.tap,
  );
  return { chat, tap: upstream.tap, cancelled };
}

describe("a piece whose every event is forwarded goes out as its own bytes", () => {
  /** The forwarded batches of a relayed call whose upstream sends `pieces`, one per read. */
  async function batchesOf(pieces: string[]) {
    const { chat } = relayed(pieces);
    const batches: Array<{ text: string; bytes: string | undefined }> = [];
    for await (const event of chat as AsyncIterable<RelayEvent>) {
      if (event.type !== "forwarded") continue;
      const bytes = event.bytes && new TextDecoder().decode(event.bytes);
      batches.push({ text: event.text, bytes });
    }
    return batches;
  }

  test("a piece whose every event was forwarded carries its bytes; any other does not", async () => {
    const pieces = [
      chunk({ role: "assistant", content: "" }) + text("a"), // before content: decoded
      text("b") + text("c é🙂"), // forwarded whole
      `: ping\n\n${text("d")}`, // a comment (SSE readers skip it) and a forwarded event
      text("f").replace("\n\n", "\r\n\r\n"), // CRLF: the same event to any SSE reader
      chunk({ reasoning: "r" }) + text("g"), // reasoning is renamed by the relay
      text("h") + chunk({ tool_calls: [{ index: 0, id: "t" }] }), // tool calls are the relay's
      text("i"), // a whole piece again
      text("j") + chunk({}, "stop"), // the finish is the relay's
      "data: [DONE]\n\n",
    ];
    expect(await batchesOf(pieces)).toEqual([
      { text: pieces[1], bytes: pieces[1] },
      { text: text("d"), bytes: pieces[2] },
      { text: text("f"), bytes: pieces[3] },
      { text: text("g"), bytes: undefined },
      { text: text("h"), bytes: undefined },
      { text: text("i"), bytes: pieces[6] },
      { text: text("j"), bytes: undefined },
    ]);
  });

  test("a full 64 KiB read goes on up to its last event's end; the rest starts the next piece", async () => {
    const big = Array.from({ length: 300 }, (_, i) => text(`${i} ${"a".repeat(240)}`)).join("");
    expect(big.length).toBeGreaterThan(64 * 1024 + 1000);
    const batches = await batchesOf([
      chunk({ role: "assistant", content: "" }) + text("x"),
      big,
      text("z"),
      "data: [DONE]\n\n",
    ]);
    expect(batches.map((b) => b.text).join("")).toBe(big + text("z"));
    expect(batches).toHaveLength(3);
    expect(batches[0]!.text.length).toBeLessThanOrEqual(64 * 1024);
    for (const batch of batches) expect(batch.bytes).toBe(batch.text);
  });
});

describe("while content is forwarded, an event's first bytes are not a read of their own", () => {
  /** `event` as workerd hands over a chunk of a chunked body: its first 28 bytes, then the rest. */
  const asWorkerd = (event: string) => [event.slice(0, 28), event.slice(28)];

  test("forwarded events split as workerd splits them take one read each", async () => {
    const words = Array.from({ length: 20 }, (_, i) => text(`word ${i} `));
    const { chat, tap } = relayed([
      chunk({ role: "assistant", content: "" }),
      ...words.flatMap(asWorkerd),
      chunk({}, "stop"),
      "data: [DONE]\n\n",
    ]);
    let forwarded = "";
    for await (const event of chat as AsyncIterable<RelayEvent>) {
      if (event.type === "forwarded") forwarded += event.text;
    }
    // The first word is decoded (the answer begins with it) and turns coalescing on for the
    // second; from then on each word is one read, not two.
    expect(forwarded).toBe(words.slice(1).join(""));
    expect(tap.reads).toBeLessThanOrEqual(2 + 2 + 19 + 2 + 1);
    expect(tap.reads).toBeLessThan(2 * words.length);
  });

  test("what ends the answer is never waited on: [DONE] arrives though the body stays open", async () => {
    // A finish reason turns coalescing off, so the 14 bytes of `[DONE]` are handed on as they
    // come; were the read still waiting for 32 bytes, this call would never end.
    const { chat, cancelled } = relayed(
      [
        chunk({ role: "assistant", content: "" }),
        text("a"),
        text("b"),
        chunk({}, "stop"),
        "data: [DONE]\n\n",
      ],
      "hold",
    );
    // Iterated, as the relay does: only then are events forwarded (and coalescing on).
    let forwarded = "";
    let finish: string | undefined;
    for await (const event of chat as AsyncIterable<RelayEvent>) {
      if (event.type === "forwarded") forwarded += event.text;
      if (event.type === "finish") finish = event.result.finishReason;
    }
    expect(forwarded).toBe(text("b"));
    expect(finish).toBe("stop");
    await cancelled; // the body that stayed open is let go
  });

  test("the known limit: no finish reason, a bare [DONE], the body held open — the idle timeout ends the call", async () => {
    // Coalescing stays on without a finish reason, and a read waiting for 32 bytes cannot hand
    // over the 14 of `[DONE]` (nor be taken back to get at them). A server that both omits the
    // finish reason and keeps the body open after `[DONE]` therefore looks stalled: the call
    // ends after `timeouts.idleMs` with what it had forwarded, as a stalled stream does, and
    // the upstream is let go (docs/relay.md, "What the relay guarantees", its known limit).
    const { chat, cancelled } = relayed(
      [chunk({ role: "assistant", content: "" }), text("a"), text("b"), "data: [DONE]\n\n"],
      "hold",
      200,
    );
    let forwarded = "";
    const ended = (async () => {
      for await (const event of chat as AsyncIterable<RelayEvent>) {
        if (event.type === "forwarded") forwarded += event.text;
      }
    })();
    await expect(ended).rejects.toMatchObject({ name: "PartialStreamError" });
    expect(forwarded).toBe(text("b"));
    await cancelled;
  });
});

describe("real provider streams through the coalescing reads (test/recorded/, SOURCES.md)", () => {
  const root = new URL("../recorded/", import.meta.url);
  const chats = Object.entries(EXPECTED)
    .filter(([, e]) => e.protocol === "openai-chat" && e.error === undefined)
    .map(([name]) => name);

  test.each(chats)(
    "%s, every event split as workerd splits a chunk, the body left open after it: the same answer, and the call ends",
    async (name) => {
      const recorded = readFileSync(new URL(name, root), "utf8");
      const direct = await streamChat({
        baseURL: "https://up.test/v1",
        body: { model: "m", messages: [] },
        maxRetries: 0,
        fetch: () =>
          Promise.resolve(
            new Response(recorded, { headers: { "content-type": SSE["content-type"] } }),
          ),
      }).result;
      // One piece per event as a provider writes them, each handed over in workerd's two reads;
      // then the body stays open, as a server that keeps the connection after its last event.
      const pieces = recorded.split(/(?<=\n\n)/).flatMap((event) =>
        event.length > 28 ? [event.slice(0, 28), event.slice(28)] : [event]
      );
      const { chat } = relayed(pieces, "hold");
      let content = "";
      let finish: string | undefined;
      for await (const event of chat as AsyncIterable<RelayEvent>) {
        if (event.type === "text") content += event.text;
        if (event.type === "finish") finish = event.result.finishReason;
        if (event.type !== "forwarded") continue;
        for (const line of event.text.split("\n")) {
          if (!line.startsWith("data: ")) continue;
          content += JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? "";
        }
      }
      expect(content).toBe(direct.content);
      expect(finish).toBe(direct.finishReason);
    },
  );
});
