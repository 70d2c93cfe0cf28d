/**
 * `maxEventBytes` bounds memory: every line of the pending event counts (not only the data
 * characters; a comment line only while it arrives, as the parser keeps none of it), an oversized
 * event fails with `StreamProtocolError` and is not retried, and the heap stays under
 * 3 × maxEventBytes + 64 MiB whatever shape the attack takes.
 */

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { StreamProtocolError } from "../../src/core/error_classes.ts";
import { EVENT_PROGRESS, type StreamDecoder } from "../../src/protocols/protocol.ts";
import { SseFeed } from "../../src/client/sse_feed.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import { options } from "../support/chat.ts";
import { chunk, DONE, sse } from "../support/sse.ts";
import { seedFor } from "../support/seed.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const MiB = 1024 * 1024;
const CAP = 16 * MiB; // the default maxEventBytes
const BOUND = 3 * CAP + 64 * MiB;
const CHUNK = 64 * 1024;

/**
 * One attack: `head` once, then `line` repeated until `total` characters went out (then
 * `tail`), in 64 KiB chunks, sampling the heap before each chunk. If the heap passes the bound
 * the body errors at once, so a regression fails fast instead of eating the machine.
 */
function attack(head: string, line: string, total: number, tail = "") {
  const repeat = line.repeat(Math.max(1, Math.floor(CHUNK / line.length)));
  const encoder = new TextEncoder();
  let sent = 0;
  let peak = 0;
  let first = true;
  const baseline = (gc(), process.memoryUsage().heapUsed);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const used = process.memoryUsage().heapUsed - baseline;
      peak = Math.max(peak, used);
      if (used > BOUND) return controller.error(new Error(`heap grew by ${used} bytes`));
      if (sent >= total) {
        controller.enqueue(encoder.encode(tail));
        return controller.close();
      }
      const text = first ? head + repeat : repeat;
      first = false;
      sent += text.length;
      controller.enqueue(encoder.encode(text));
    },
  });
  const requests: number[] = [];
  const fetch = () => {
    requests.push(1);
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  };
  return { fetch, requests, peak: () => peak };
}

const START = sse(chunk({ role: "assistant", content: "" }));

describe("maxEventBytes bounds the memory a single event can take", () => {
  test.each([
    ["12 M empty data: lines (72 MB on the wire, 12 M characters of data)", "data:\n", 72e6],
    ["empty `data` lines without a colon", "data\n", 60e6],
    ["short data lines", "data: x\n", 96e6],
    ["CR-terminated empty data lines", "data:\r", 72e6],
    ["CRLF-terminated empty data lines", "data:\r\n", 84e6],
    ["one data line that never ends", "data: " + "x".repeat(1000), 64e6],
    ["one data line of CJK text that never ends", "data: " + "漢".repeat(1000), 64e6],
    ["a comment line that never ends", ": " + "x".repeat(1000), 64e6],
    ["event: and id: lines, never a blank line", "event: message\nid: 42\n", 96e6],
    ["unknown fields, never a blank line", "x\n", 48e6],
  ])("%s: StreamProtocolError, not retried, heap bounded", async (_name, line, total) => {
    const hostile = attack(START, line, total);
    const stream = streamChat(options({ fetch: hostile.fetch }));
    const error = await stream.result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect((error as Error).message).toMatch(/exceeded 16777216 bytes/);
    expect((error as StreamProtocolError).attempts).toBe(1);
    expect(hostile.requests).toHaveLength(1);
    expect(hostile.peak()).toBeLessThan(BOUND);
  });

  test("an oversized event that arrives whole in one chunk is refused before it is parsed", async () => {
    const cap = MiB;
    // 20 000 empty data lines, then a valid chunk: 140 KB of text, but JSON.parse skips the
    // 20 000 newlines the data starts with, so only the line count makes it oversized.
    const event = "data:\n".repeat(20_000) + sse(chunk({ content: "hidden" }));
    const fetch = () =>
      Promise.resolve(
        new Response(START + event + DONE, { headers: { "content-type": "text/event-stream" } }),
      );
    const error = await streamChat(options({ fetch, maxEventBytes: cap })).result.catch((e) => e);
    expect(error).toBeInstanceOf(StreamProtocolError);
  });

  test("keep-alive comment lines with no blank line between them do not add up", async () => {
    // The relay's framing: `: keep-alive\n` alone, every 400 ms while the first token is slow.
    const cap = 4096;
    const keepAlives = ": keep-alive\n".repeat(1000);
    const body = keepAlives + START + keepAlives + sse(chunk({ content: "late" })) + DONE;
    const requests: number[] = [];
    const fetch = () => {
      requests.push(1);
      return Promise.resolve(
        new Response(body, { headers: { "content-type": "text/event-stream" } }),
      );
    };
    const result = await streamChat(options({ fetch, maxEventBytes: cap })).result;
    expect(result.content).toBe("late");
    expect(requests).toHaveLength(1);
  });

  test("events within the cap pass, however they are framed", async () => {
    const cap = 64 * 1024;
    const content = "x".repeat(cap - 2048);
    // The same chunk as one data line, and pretty-printed over a data line per JSON line.
    const pretty = JSON.stringify(chunk({ content }), null, 1).split("\n");
    expect(pretty.length).toBeGreaterThan(10);
    const multiline = pretty.map((line) => `data: ${line}\n`).join("") + "\n";
    for (const event of [sse(chunk({ content })), multiline]) {
      const body = START + event + sse(chunk({}, "stop")) + DONE;
      const fetch = () =>
        Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } }));
      const result = await streamChat(options({ fetch, maxEventBytes: cap })).result;
      expect(result.content).toBe(content);
    }
  });
});

const SEED = seedFor("event_budget");

/**
 * The reference: the heaviest event of a whole stream, by the documented rule (a comment line
 * weighs on the event while it is read, and is gone once it ends).
 */
function heaviestEvent(text: string): number {
  let heaviest = 0;
  let pending = 0;
  for (const line of text.split(/\r\n|\r|\n/).slice(0, -1)) {
    if (line === "") pending = 0;
    else if (line.startsWith(":")) heaviest = Math.max(heaviest, pending + line.length + 64);
    else pending += line.length + 64;
    heaviest = Math.max(heaviest, pending);
  }
  return heaviest;
}

describe("the event budget", () => {
  const decoder: StreamDecoder = { onEvent: () => EVENT_PROGRESS, endedCleanly: () => true };
  const line = fc.oneof(
    fc.constantFrom("data:", "data", "", "", "event: x", ": ping", ":", "id: 1"),
    fc.string({ maxLength: 300 }).map((text) => `data: ${text.replace(/[\r\n]/g, "")}`),
  );
  const ending = fc.constantFrom("\n", "\r", "\r\n");
  const stream = fc.array(fc.tuple(line, ending), { maxLength: 60 })
    .map((lines) => lines.map(([text, end]) => text + end).join(""));

  test("refuses exactly the streams whose heaviest event is over the cap, however they are split", () => {
    fc.assert(
      fc.property(
        stream,
        // Caps around the heaviest event's weight, where an off-by-one would show.
        fc.integer({ min: -150, max: 150 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        (text, delta, cuts) => {
          const cap = Math.max(1, heaviestEvent(text) + delta);
          const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
          const chunks = [0, ...points, text.length].slice(1).map((end, i, ends) =>
            text.slice(i === 0 ? 0 : ends[i - 1], end)
          );
          const feed = new SseFeed(decoder, cap);
          let refused = false;
          try {
            for (const piece of chunks) feed.feed(piece);
          } catch (error) {
            expect(error).toBeInstanceOf(StreamProtocolError);
            refused = true;
          }
          expect(refused).toBe(heaviestEvent(text) > cap);
        },
      ),
      { seed: SEED, numRuns: 1000 },
    );
  });
});
