import { afterEach, describe, expect, test, vi } from "vitest";
import { parseDemoFaults } from "../../src/apps/demo/faults.ts";
import { isDemoDrop } from "../support/fault_handler.ts";
import {
  chatRequest,
  counted,
  joinDeltas,
  jsonChunks,
  parseRaw,
  readBody,
} from "./demo_helpers.ts";

function demo(wordDelayMs = 0) {
  const { handler, seen, cancels } = counted(wordDelayMs);
  const call = (fault: string, attempt?: number, body: Record<string, unknown> = {}) =>
    handler(
      chatRequest({ stream: true, stream_options: { include_usage: true }, ...body }, {
        "x-demo-fault": fault,
        ...(attempt === undefined ? {} : { "x-demo-attempt": String(attempt) }),
      }),
    );
  return { handler, call, seen, cancels };
}

const contentOf = (text: string) =>
  jsonChunks(parseRaw(text)).filter((c) => c.choices[0]?.delta.content);

describe("parseDemoFaults", () => {
  test("reads general keys and lets attemptN entries override them for attempt N only", () => {
    const spec = "drop-after=5, status=200, attempt1=status:503, attempt2=drop-after:3;ping-ms:20";
    expect(parseDemoFaults(spec, 1)).toEqual({ dropAfter: 5, status: 503 });
    expect(parseDemoFaults(spec, 2)).toEqual({ dropAfter: 3, status: 200, pingMs: 20 });
    expect(parseDemoFaults(spec, 3)).toEqual({ dropAfter: 5, status: 200 });
    expect(parseDemoFaults("", 1)).toEqual({});
    expect(parseDemoFaults("html=1,retry-after=2,retry-after-ms=1500", 1))
      .toEqual({ html: true, retryAfter: 2, retryAfterMs: 1500 });
  });

  test("rejects unknown keys, malformed entries and out-of-range values, in any attempt", () => {
    expect(() => parseDemoFaults("stal-ms=3", 1)).toThrow(/Unknown x-demo-fault key "stal-ms"/);
    expect(() => parseDemoFaults("attempt9=nope:1", 1)).toThrow(TypeError);
    expect(() => parseDemoFaults("status", 1)).toThrow(/key=value/);
    expect(() => parseDemoFaults("attempt1=status=503", 1)).toThrow(/key:value/);
    expect(() => parseDemoFaults("status=302", 1)).toThrow(RangeError);
    expect(() => parseDemoFaults("drop-after=-1", 1)).toThrow(RangeError);
    expect(() => parseDemoFaults("ping-ms=0", 1)).toThrow(RangeError);
    expect(() => parseDemoFaults("html=yes", 1)).toThrow(RangeError);
    // Object.prototype's members are unknown keys too, named in the message.
    for (const key of ["__proto__", "constructor", "hasownproperty"]) {
      expect(() => parseDemoFaults(`${key}=1`, 1)).toThrow(`Unknown x-demo-fault key "${key}"`);
      expect(() => parseDemoFaults(`attempt2=${key}:1`, 1)).toThrow(`"${key}"`);
    }
  });
});

describe("demo upstream faults", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test("status=503 with retry-after answers an OpenAI-style error and the header", async () => {
    const d = demo();
    const response = await d.call("status=503,retry-after=1");
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    expect((await response.json()).error).toMatchObject({ type: "server_error", code: null });
    const limited = await d.call("status=429,retry-after-ms=1500");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after-ms")).toBe("1500");
    expect((await limited.json()).error.type).toBe("rate_limit_error");
    expect(d.seen.map((s) => s.faults)).toEqual([
      "status=503,retry-after=1",
      "status=429,retry-after-ms=1500",
    ]);
  });

  test("per-attempt faults apply only to their attempt", async () => {
    const d = demo();
    const spec = "attempt1=status:503,attempt2=drop-after:3";
    expect((await d.call(spec, 1)).status).toBe(503);
    const second = await readBody((await d.call(spec, 2)).body!);
    expect(second.error).toBeInstanceOf(Error);
    expect(contentOf(second.text)).toHaveLength(3);
    const third = await readBody((await d.call(spec, 3)).body!);
    expect(third.error).toBeUndefined();
    expect(third.text).toMatch(/data: \[DONE\]\n\n$/);
    expect(d.seen.map((s) => s.attempt)).toEqual([1, 2, 3]);
  });

  test("drop-after errors the body after N words with no finish chunk or [DONE]", async () => {
    const { text, error } = await readBody((await demo().call("drop-after=5")).body!);
    expect(String(error)).toMatch(/dropped the connection after 5 words/);
    // What the Deno conformance server keeps quiet about: it must recognise this error.
    expect(isDemoDrop(error)).toBe(true);
    const chunks = jsonChunks(parseRaw(text));
    expect(chunks).toHaveLength(5);
    expect(chunks.some((chunk) => chunk.choices[0].finish_reason !== null)).toBe(false);
    expect(text).not.toContain("[DONE]");
  });

  test("error-event-after sends the error event after N words and ends without [DONE]", async () => {
    const { text, error } = await readBody((await demo().call("error-event-after=3")).body!);
    expect(error).toBeUndefined();
    const events = parseRaw(text);
    expect(events).toHaveLength(4);
    expect(JSON.parse((events[3] as { data: string }).data)).toEqual({
      error: { message: "Network connection lost.", type: "server_error" },
    });
    expect(text).not.toContain("[DONE]");
  });

  test("a stall after N words sends only pings until the stream resumes", async () => {
    const started = Date.now();
    const response = await demo().call("stall-ms=120,stall-after=2,ping-ms=20");
    const { text } = await readBody(response.body!);
    expect(Date.now() - started).toBeGreaterThanOrEqual(115);
    const events = parseRaw(text);
    const data = events.flatMap((event, index) => event.kind === "data" ? [index] : []);
    const stalled = events.slice((data[1] as number) + 1, data[2]);
    expect(stalled.length).toBeGreaterThanOrEqual(3);
    expect(stalled.every((event) => event.kind === "comment" && event.text === "ping")).toBe(true);
    expect(events.at(-1)).toEqual({ kind: "data", data: "[DONE]" });
  });

  test("first-byte-ms delays the headers", async () => {
    const d = demo();
    const started = Date.now();
    const response = await d.call("first-byte-ms=40");
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
    expect(response.status).toBe(200);
    expect(d.seen).toHaveLength(1);
  });

  test("html=1 answers 200 with an HTML page", async () => {
    const response = await demo().call("html=1");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await response.text()).toMatch(/^<!doctype html>/);
  });

  test("words and word-delay override length and pacing", async () => {
    const started = Date.now();
    const { text } = await readBody((await demo(0).call("words=50,word-delay=2")).body!);
    expect(contentOf(text)).toHaveLength(50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
  });

  test("several faults combine: slow first byte, pings, stall and a drop", async () => {
    const started = Date.now();
    const response = await demo().call("first-byte-ms=20,ping-ms=20,stall-ms=60,drop-after=4");
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    const { text, error } = await readBody(response.body!);
    expect(error).toBeInstanceOf(Error);
    expect(contentOf(text)).toHaveLength(4);
    expect(parseRaw(text).some((event) => event.kind === "comment")).toBe(true);
  });

  test("unknown fault keys and bad attempt headers are a 400 that names the problem", async () => {
    const d = demo();
    const unknown = await d.call("explode=1");
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error).toMatchObject({
      code: "invalid_demo_fault",
      message: expect.stringContaining('"explode"'),
    });
    const attempt = await d.call("", 0);
    expect(attempt.status).toBe(400);
    expect((await attempt.json()).error.message).toMatch(/x-demo-attempt/);
    expect(d.seen).toHaveLength(1);
  });

  test("cancelling the body clears every timer and reports the words sent", async () => {
    vi.useFakeTimers();
    const d = demo(10);
    const response = await d.call("ping-ms=20,stall-ms=1000,stall-after=2");
    const reader = response.body!.getReader();
    await vi.advanceTimersByTimeAsync(25);
    // The word (or stall) timer, the ping interval, the response time limit.
    expect(vi.getTimerCount()).toBe(3);
    await reader.cancel();
    expect(d.cancels).toEqual([{ attempt: 1, wordsSent: 2 }]);
    expect(vi.getTimerCount()).toBe(0);
  });

  test("an aborted request signal ends the stream and counts as a cancel", async () => {
    const d = demo(1);
    const controller = new AbortController();
    const request = new Request(chatRequest({ stream: true }), { signal: controller.signal });
    const response = await d.handler(request);
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    expect(d.cancels).toHaveLength(1);
  });

  test("an abort while waiting for the first byte counts as a cancel with no words", async () => {
    const d = demo();
    const controller = new AbortController();
    const request = new Request(
      chatRequest({ stream: true }, { "x-demo-fault": "first-byte-ms=5000" }),
      {
        signal: controller.signal,
      },
    );
    const pending = d.handler(request);
    controller.abort();
    expect((await pending).status).toBe(499);
    expect(d.cancels).toEqual([{ attempt: 1, wordsSent: 0 }]);
  });

  test("a reasoning stream counts reasoning words toward drop-after", async () => {
    const { text } = await readBody((await demo().call("reasoning=4,drop-after=6")).body!);
    const chunks = jsonChunks(parseRaw(text));
    expect(joinDeltas(chunks, "reasoning_content").split(" ")).toHaveLength(4);
    expect(joinDeltas(chunks, "content").split(" ")).toHaveLength(2);
  });
});
