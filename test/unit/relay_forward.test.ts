/**
 * The relay's fast path for `openai-chat` upstreams (src/relay/forward.ts): once the answer has
 * begun, events the relay need not change reach the caller as the upstream sent them, and every
 * guarantee of the relay still holds — retries and fallbacks before content, the relay's error
 * event instead of a silent or raw truncation, `[DONE]` only on a complete stream, usage only
 * for a caller who asked, the upstream cancelled when the caller leaves. The same in workerd,
 * from a real socket: test/workers/forward.test.ts.
 */

import { createParser } from "eventsource-parser";
import fc from "fast-check";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import { forwardable } from "../../src/relay/forward.ts";
import { anthropicWire } from "./fixtures/anthropic_wire.ts";
import { answer } from "./protocol_wire.ts";
import type { RelayOptions } from "../../src/relay/options.ts";
import {
  chunk,
  DONE,
  scriptedBody,
  splitBytes,
  sse,
  type Step,
  usageChunk,
} from "../support/sse.ts";
import { seedFor } from "../support/seed.ts";

const SEED = seedFor("relay_forward");

/** One upstream request: its body, and the signal that aborts when the relay lets go of it. */
interface UpstreamCall {
  url: string;
  body: Record<string, unknown>;
  signal: AbortSignal;
}

/** A relay whose upstreams answer the n-th request with `replies[n - 1]`. */
function relay(replies: Array<(call: UpstreamCall) => Response>, options: RelayOptions = {}) {
  const calls: UpstreamCall[] = [];
  const app = createRelay({
    upstreams: [{ baseURL: "https://up.test/v1", apiKey: "sk-up-secret-0123456789" }],
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    ...options,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const call = { url: request.url, body: await request.json(), signal: request.signal };
      calls.push(call);
      const reply = replies[calls.length - 1] ?? replies.at(-1)!;
      return reply(call);
    },
  });
  return { app, calls };
}

/** An event-stream reply; a string body is a byte stream (the 64 KiB-read path), steps are not. */
function stream(body: string | Step[]): (call: UpstreamCall) => Response {
  return (call) =>
    new Response(typeof body === "string" ? body : scriptedBody(body, call.signal).stream, {
      headers: { "content-type": "text/event-stream" },
    });
}

/** An event-stream reply whose body is a byte stream handing over `pieces`, one per read. */
function pieces(parts: Uint8Array[]): (call: UpstreamCall) => Response {
  return () => {
    let next = 0;
    const body = new ReadableStream({
      type: "bytes",
      pull(controller) {
        const part = parts[next++];
        if (part !== undefined) return controller.enqueue(part.slice());
        controller.close();
        controller.byobRequest?.respond(0); // a waiting BYOB read ends only when answered
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  };
}

function post(app: ReturnType<typeof createRelay>, extra: Record<string, unknown> = {}) {
  return app.request("http://relay.test/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "Hi" }],
      stream: true,
      ...extra,
    }),
  });
}

/** The `data:` of every event the caller got, in order (comments left out). */
/** The `data` of every event the caller got, read by an SSE parser (any line endings). */
function dataOf(raw: string): string[] {
  const data: string[] = [];
  const parser = createParser({ onEvent: (event) => data.push(event.data) });
  parser.feed(raw);
  return data;
}

// deno-lint-ignore no-explicit-any
function parsed(raw: string): Array<Record<string, any>> {
  return dataOf(raw).filter((d) => d !== "[DONE]").map((d) => JSON.parse(d));
}

function contentOf(raw: string): string {
  return parsed(raw).map((c) => c.choices?.[0]?.delta?.content ?? "").join("");
}

/** A content chunk with fields the relay's own chunks never carry. */
function rich(text: string, id = "chatcmpl-up"): Record<string, unknown> {
  return {
    ...chunk({ content: text }, null, { system_fingerprint: "fp_1", obfuscation: "x1" }),
    id,
    created: 1_700_000_123,
    model: "gpt-up-2025",
  };
}

function role(id = "chatcmpl-up"): string {
  return sse({
    ...chunk({ role: "assistant", content: "" }),
    id,
    created: 1_700_000_123,
    model: "gpt-up-2025",
  });
}

describe("events after the first delta go to the caller as they arrived", () => {
  test("their data is the upstream's, byte for byte; the first delta and the finish are the relay's", async () => {
    const events = ["Hel", "lo", " wor", "ld"].map((t) => JSON.stringify(rich(t)));
    const { app } = relay([
      stream(role() + events.map((e) => `data: ${e}\n\n`).join("") + sse(chunk({}, "stop")) + DONE),
    ]);
    const raw = await (await post(app)).text();
    const data = dataOf(raw);
    expect(data.slice(1, 4)).toEqual(events.slice(1));
    const first = JSON.parse(data[0]!);
    expect(first.choices[0].delta).toEqual({ role: "assistant", content: "Hel" });
    expect(first).not.toHaveProperty("obfuscation");
    expect(data.slice(4)).toEqual([expect.stringContaining('"finish_reason":"stop"'), "[DONE]"]);
  });

  test("every chunk carries the upstream's id, model and created", async () => {
    const body = role() + ["a", "b", "c"].map((t) => sse(rich(t))).join("") +
      sse({ ...chunk({}, "length"), id: "chatcmpl-up", model: "gpt-up-2025" }) + DONE;
    const { app } = relay([stream(body)]);
    const chunks = parsed(await (await post(app)).text());
    expect(chunks.length).toBe(4);
    for (const c of chunks) {
      expect(c).toMatchObject({ id: "chatcmpl-up", model: "gpt-up-2025", created: 1_700_000_123 });
    }
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe("length");
  });

  test("events the relay acts on are its own chunks, in order with the forwarded ones", async () => {
    const body = role() + sse(rich("a")) + sse(rich("b")) +
      sse(chunk({ reasoning: "think" })) + sse(rich("c")) +
      sse(chunk({ content: [{ type: "text", text: "d" }] })) + sse(rich("e")) +
      sse(chunk({}, "stop")) + DONE;
    const { app } = relay([stream(body)]);
    const deltas = parsed(await (await post(app)).text()).map((c) => c.choices[0].delta);
    expect(deltas).toEqual([
      { role: "assistant", content: "a" },
      { content: "b" },
      { reasoning_content: "think" },
      { content: "c" },
      { content: "d" },
      { content: "e" },
      {},
    ]);
  });

  test("however the upstream's bytes are cut, the caller gets the same events in the same order", async () => {
    const parts = Array.from(
      { length: 40 },
      (_, i) => i % 7 === 3 ? { reasoning: `r${i}` } : { content: `t${i} é🙂` },
    );
    // Some events framed otherwise (a comment, CRLF, an id): whether a piece goes out as it
    // came or as the relay's text, an SSE reader must read the same events from it.
    const events = parts.map((d, i) => {
      const event = sse(chunk(d));
      if (i % 11 === 5) return `: ping\n\n${event}`;
      if (i % 11 === 8) return event.replaceAll("\n", "\r\n");
      return i % 11 === 9 ? `id: ${i}\n${event}` : event;
    });
    const body = role() + events.join("") + sse(chunk({}, "stop")) + DONE;
    const bytes = new TextEncoder().encode(body);
    const { app: whole } = relay([stream(body)]);
    const expected = parsed(await (await post(whole)).text());
    expect(expected.length).toBe(parts.length + 1);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 30 }),
        fc.boolean(),
        async (cuts, byteStream) => {
          const split = splitBytes(bytes, cuts);
          const { app } = relay([byteStream ? pieces(split) : stream(split)]);
          const raw = await (await post(app)).text();
          expect(parsed(raw)).toEqual(expected);
        },
      ),
      { seed: SEED, numRuns: 80 },
    );
  });

  test("an upstream's own framing never reaches the caller: comments, id and retry lines, CR, data: without its space", async () => {
    // Each a piece of its own (one read each), every event in it forwardable: only the framing
    // differs from the relay's. A hostile upstream's comment might carry anything (here, the
    // upstream key it was sent). With CR line endings a piece's event is parsed only when the
    // next piece comes (its CR could begin a CRLF): that piece's bytes alone would lose it.
    const e = (text: string) => JSON.stringify(rich(text));
    const odd = [
      `: sk-up-secret-0123456789 internal.host\n\ndata: ${e("a")}\n\n`,
      `id: 7\ndata: ${e("b")}\n\n`,
      `retry: 1\n\ndata: ${e("c")}\n\n`,
      `data: ${e("d")}\r\n\r\n`,
      `data: ${e("e")}\r\r`,
      `data:${e("f")}\n\n`,
      `data: ${e("g")}\n\n\n`,
      `data: ${e("h")}\n\ndata: ${e("i")}\n\n`, // as the relay frames it: may go as it came
    ];
    const bytes = [role() + sse(rich("x")), ...odd, sse(chunk({}, "stop")) + DONE]
      .map((text) => new TextEncoder().encode(text));
    const { app } = relay([pieces(bytes)]);
    const raw = await (await post(app)).text();
    expect(contentOf(raw)).toBe("xabcdefghi");
    expect(raw).not.toContain("\r");
    expect(raw).not.toContain("sk-up");
    // The relay's own framing only: its keep-alive, `data: ` events, blank lines between them.
    for (const line of raw.split("\n")) expect(line).toMatch(/^(?:|: keep-alive|data: .*)$/);
    expect(raw).not.toContain("\n\n\n");
    const events = ["a", "b", "c", "d", "e", "f", "g"].map((t) => `data: ${e(t)}\n\n`);
    expect(raw).toContain(events.join("") + `data: ${e("h")}\n\ndata: ${e("i")}\n\n`);
  });

  test("upstream fields waiting for a chunk go out before a whole piece that follows, not after", async () => {
    // Found in review: a whole forwarded piece went out as its bytes, past the encoder, and the
    // logprobs of the event before it (decoded, since its content is a list of parts, and
    // writing nothing) came after it.
    const withLogprobs = {
      ...rich("x"),
      choices: [{ index: 0, delta: { content: [] }, logprobs: { content: [{ token: "x" }] } }],
    };
    const bytes = [
      role() + sse(rich("a")),
      sse(withLogprobs),
      sse(rich("Hi")),
      sse(chunk({}, "stop")) + DONE,
    ]
      .map((text) => new TextEncoder().encode(text));
    const { app } = relay([pieces(bytes)]);
    const raw = await (await post(app, { logprobs: true })).text();
    const order = parsed(raw).flatMap((c) => [
      ...(c.choices?.[0]?.logprobs?.content ?? []).map((t: { token: string }) => `lp:${t.token}`),
      ...(typeof c.choices?.[0]?.delta?.content === "string" ? [c.choices[0].delta.content] : []),
    ]).filter((x) => x !== "");
    expect(order).toEqual(["a", "lp:x", "Hi"]);
  });

  // docs/relay.md's guarantees: the shape check does not re-parse an event, so one malformed
  // inside its braces must reach the caller as it came (and fail the caller's parse), never be
  // dropped on the way.
  test("an event malformed inside its braces reaches the caller as it came, never dropped", async () => {
    const malformed = '{"choices":[{"index":0,"delta":{"content":"b"}}],"x":}';
    const body = role() + sse(rich("a")) + `data: ${malformed}\n\n` + sse(rich("c")) +
      sse(chunk({}, "stop")) + DONE;
    const { app } = relay([stream(body)]);
    const data = dataOf(await (await post(app)).text());
    expect(data).toContain(malformed);
    expect(() => JSON.parse(malformed)).toThrow(SyntaxError);
  });

  test("the openai SDK's stream helper assembles the answer", async () => {
    const words = Array.from({ length: 200 }, (_, i) => ` w${i}`);
    const body = role() + words.map((t) => sse(rich(t))).join("") + sse(chunk({}, "stop")) + DONE;
    const { app } = relay([stream(body)]);
    const client = new OpenAI({
      baseURL: "http://relay.test/v1",
      apiKey: "unused",
      maxRetries: 0,
      fetch: (input, init) => Promise.resolve(app.request(String(input), init)),
    });
    const completion = await client.chat.completions
      .stream({ model: "m", messages: [{ role: "user", content: "Hi" }] })
      .finalChatCompletion();
    expect(completion.id).toBe("chatcmpl-up");
    expect(completion.choices[0]!.message.content).toBe(words.join(""));
    expect(completion.choices[0]!.finish_reason).toBe("stop");
  });
});

describe("only choice 0 is the answer", () => {
  test("a delta for choices[1] never joins the answer, nor do its logprobs, on the fast path or off it", async () => {
    // Choice 1 of an `n > 1` stream (the relay asks for one, an upstream may send more anyway):
    // once alone, once beside choice 0, with logprobs of its own.
    const other = (text: string) => ({
      index: 1,
      delta: { content: text },
      logprobs: { content: [{ token: text, logprob: -1, bytes: [], top_logprobs: [] }] },
      finish_reason: null,
    });
    const body = role() + sse(rich("a")) + sse({ ...rich("x"), choices: [other("OTHER")] }) +
      sse(rich("b")) +
      sse({ ...rich("x"), choices: [{ index: 0, delta: { content: "c" } }, other("MORE")] }) +
      sse(chunk({}, "stop")) + DONE;
    const { app, calls } = relay([stream(body)]);
    const raw = await (await post(app)).text();
    expect(calls.length).toBe(1);
    expect(contentOf(raw)).toBe("abc");
    expect(raw).not.toMatch(/OTHER|MORE/);
    for (const c of parsed(raw)) {
      for (const choice of c.choices ?? []) expect(choice.index).toBe(0);
    }
  });
});

describe("the relay's guarantees hold on the fast path", () => {
  test("a drop before content is retried unseen; the answer is the second attempt's, id included", async () => {
    const { app, calls } = relay([
      stream([role("chatcmpl-first")]), // ends with no content and no finish: a cut connection
      stream(
        role("chatcmpl-second") + sse(rich("o", "chatcmpl-second")) +
          sse(rich("k", "chatcmpl-second")) + sse(chunk({}, "stop")) + DONE,
      ),
    ]);
    const raw = await (await post(app)).text();
    expect(contentOf(raw)).toBe("ok");
    expect(new Set(parsed(raw).map((c) => c.id))).toEqual(new Set(["chatcmpl-second"]));
    expect(calls).toHaveLength(2);
  });

  test("a fallback after a failure before content: the fallback's events, and its id", async () => {
    const { app, calls } = relay([
      () => new Response("overloaded", { status: 503 }),
      stream(
        role("chatcmpl-fb") + sse(rich("o", "chatcmpl-fb")) + sse(rich("k", "chatcmpl-fb")) +
          sse(chunk({}, "stop")) + DONE,
      ),
    ], {
      upstreams: [{ baseURL: "https://up.test/v1" }, { baseURL: "https://fallback.test/v1" }],
      maxRetries: 0,
    });
    const response = await post(app);
    expect(response.headers.get("x-stopstream-upstream")).toBe("1");
    const raw = await response.text();
    expect(contentOf(raw)).toBe("ok");
    expect(new Set(parsed(raw).map((c) => c.id))).toEqual(new Set(["chatcmpl-fb"]));
    expect(calls.map((c) => c.url)).toEqual([
      "https://up.test/v1/chat/completions",
      "https://fallback.test/v1/chat/completions",
    ]);
  });

  test("a fallback to another protocol: the relay's own id on every chunk", async () => {
    const anthropic = answer(anthropicWire, "o", "k").join("");
    const { app } = relay([() => new Response("down", { status: 503 }), stream(anthropic)], {
      upstreams: [
        { baseURL: "https://up.test/v1" },
        { baseURL: "https://anthropic.test/v1", protocol: "anthropic-messages", model: "claude" },
      ],
      maxRetries: 0,
    });
    const chunks = parsed(await (await post(app)).text());
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("")).toBe("ok");
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0]!.id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
  });

  test("an error event after content: the relay's error event (key redacted), never the upstream's, and no [DONE]", async () => {
    for (
      const error of [
        sse({
          error: { message: "Overloaded; key sk-up-secret-0123456789", type: "server_error" },
        }),
        sse({ message: "Overloaded; key sk-up-secret-0123456789" }, "error"),
      ]
    ) {
      const { app } = relay([
        stream(role() + sse(rich("a")) + sse(rich("b")) + sse(rich("c")) + error),
      ]);
      const raw = await (await post(app)).text();
      expect(contentOf(raw)).toBe("abc");
      expect(raw).not.toContain("[DONE]");
      expect(raw).not.toContain("sk-up-secret");
      expect(raw).not.toContain(error.slice(error.indexOf("data: ")));
      // The relay's own sentence, quoting the provider's message with the key redacted.
      expect(parsed(raw).at(-1)).toEqual({
        error: expect.objectContaining({
          code: "incomplete_stream",
          message: expect.stringMatching(
            /^The upstream reported an error \("Overloaded; key \[redacted\]"\) after part/,
          ),
        }),
      });
    }
  });

  test("an event over the client's 16 MiB cap after content: the relay's error event, nothing of it forwarded", async () => {
    // Forwardable in shape, and read in 64 KiB pieces that are never whole: the cap holds.
    const huge = `data: ${JSON.stringify(rich("x".repeat(16 * 1024 * 1024 + 10)))}\n\n`;
    const body = new TextEncoder().encode(role() + sse(rich("a")) + huge + DONE);
    const parts = Array.from(
      { length: Math.ceil(body.length / (1 << 20)) },
      (_, i) => body.subarray(i << 20, (i + 1) << 20),
    );
    const { app, calls } = relay([pieces(parts)]);
    const raw = await (await post(app)).text();
    expect(raw.length).toBeLessThan(10_000);
    expect(contentOf(raw)).toBe("a");
    expect(raw).not.toContain("[DONE]");
    expect(parsed(raw).at(-1)).toEqual({
      error: expect.objectContaining({ code: "incomplete_stream" }),
    });
    expect(calls).toHaveLength(1); // content was sent: never retried
  });

  test("a drop after content: the relay's error event and no [DONE]", async () => {
    const { app, calls } = relay([
      stream([role(), sse(rich("a")), sse(rich("b")), { error: new TypeError("socket hang up") }]),
    ]);
    const raw = await (await post(app)).text();
    expect(contentOf(raw)).toBe("ab");
    expect(raw).not.toContain("[DONE]");
    expect(parsed(raw).at(-1)).toEqual({
      error: expect.objectContaining({ code: "incomplete_stream" }),
    });
    expect(calls).toHaveLength(1); // content was sent: never retried
  });

  test("a stream that ends after its finish reason without [DONE] is complete (llama.cpp, Ollama)", async () => {
    const { app } = relay([
      stream(role() + sse(rich("a")) + sse(rich("b")) + sse(chunk({}, "stop"))),
    ]);
    const raw = await (await post(app)).text();
    expect(contentOf(raw)).toBe("ab");
    expect(dataOf(raw).at(-1)).toBe("[DONE]");
  });

  test("a stall after content: the relay's error event once the idle timeout passes", async () => {
    const { app } = relay([stream([role(), sse(rich("a")), sse(rich("b")), { hold: true }])], {
      timeouts: { idleMs: 50 },
    });
    const raw = await (await post(app)).text();
    expect(contentOf(raw)).toBe("ab");
    expect(raw).not.toContain("[DONE]");
    expect(parsed(raw).at(-1)).toEqual({
      error: expect.objectContaining({ code: "incomplete_stream" }),
    });
  });

  test("a caller who reads nothing holds the upstream back: at most about 64 KiB written ahead", async () => {
    const event = sse(rich("x".repeat(200)));
    const steps: Step[] = [role(), ...Array.from({ length: 4000 }, () => event)]; // ~1.1 MB
    let body: ReturnType<typeof scriptedBody> | undefined;
    const { app } = relay([(call) => {
      body = scriptedBody([...steps, sse(chunk({}, "stop")), DONE], call.signal);
      return new Response(body.stream, { headers: { "content-type": "text/event-stream" } });
    }]);
    const response = await post(app);
    // Nothing signals "the relay stopped reading": let every pending task run until the count
    // of upstream chunks read stays put.
    for (let still = 0, last = -1; still < 50; still = body!.sent === last ? still + 1 : 0) {
      last = body!.sent;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(body!.sent * event.length).toBeGreaterThan(64 * 1024);
    expect(body!.sent * event.length).toBeLessThan(128 * 1024);
    // And nothing was lost while it waited.
    expect(contentOf(await response.text())).toBe("x".repeat(200 * 4000));
  });

  test("a caller who leaves mid-answer cancels the upstream request", async () => {
    const steps: Step[] = [role(), ...Array.from({ length: 5 }, (_, i) => sse(rich(`w${i}`))), {
      hold: true,
    }];
    const { app, calls } = relay([stream(steps)]);
    const reader = (await post(app)).body!.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    while (!seen.includes("w4")) seen += decoder.decode((await reader.read()).value);
    expect(calls[0]!.signal.aborted).toBe(false);
    const aborted = new Promise((resolve) => calls[0]!.signal.addEventListener("abort", resolve));
    await reader.cancel();
    await aborted;
    expect(calls).toHaveLength(1);
  });

  test("a caller who did not ask for usage gets none, even from an upstream that sends it anyway", async () => {
    const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
    const body = role() + sse(rich("a")) + sse({ ...rich("b"), usage }) +
      sse({ ...chunk({}, "stop"), usage }) + sse(usageChunk(usage)) + DONE;
    const { app, calls } = relay([stream(body)]);
    const raw = await (await post(app)).text();
    expect(calls[0]!.body.stream_options).toEqual({ include_usage: false });
    expect(contentOf(raw)).toBe("ab");
    expect(parsed(raw).filter((c) => c.usage != null)).toEqual([]);
    expect(parsed(raw).every((c) => c.choices.length === 1)).toBe(true);
  });

  test("a caller who asked for usage gets it once, after the finish", async () => {
    const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
    const body = role() + sse({ ...rich("a"), usage: null }) + sse({ ...rich("b"), usage: null }) +
      sse(chunk({}, "stop")) + sse(usageChunk(usage)) + DONE;
    const { app, calls } = relay([stream(body)]);
    const raw = await (await post(app, { stream_options: { include_usage: true } })).text();
    expect(calls[0]!.body.stream_options).toEqual({ include_usage: true });
    const chunks = parsed(raw);
    expect(chunks.filter((c) => c.usage != null)).toEqual([
      expect.objectContaining({ choices: [], usage: expect.objectContaining(usage) }),
    ]);
    expect(chunks.at(-2)!.choices[0].finish_reason).toBe("stop");
    expect(dataOf(raw).at(-1)).toBe("[DONE]");
  });
});

describe("forwardable: which events the relay need not touch", () => {
  const clean = JSON.stringify(rich("Hi"));
  test.each([
    { name: "a content delta", data: clean, expected: true },
    {
      name: '"usage": null and "finish_reason": null',
      data: JSON.stringify({ ...rich("x"), usage: null }),
      expected: true,
    },
    {
      name: "text that mentions the keys",
      data: JSON.stringify(rich('"error": {"usage": 1}, "finish_reason":"stop"\n')),
      expected: true,
    },
    {
      name: "reasoning_content (DeepSeek's name)",
      data: JSON.stringify(chunk({ content: null, reasoning_content: "r" })),
      expected: true,
    },
    {
      name: "an error",
      data: JSON.stringify({ ...rich("x"), error: { message: "m" } }),
      expected: false,
    },
    {
      name: "usage",
      data: JSON.stringify({ ...rich("x"), usage: { total_tokens: 1 } }),
      expected: false,
    },
    {
      name: "usage, spaced out",
      data: '{"choices":[{"delta":{"content":"x"}}], "usage" : {"total_tokens":1}}',
      expected: false,
    },
    { name: "a finish reason", data: JSON.stringify(chunk({}, "stop")), expected: false },
    {
      name: "a finish reason, spaced out",
      data: '{"choices":[{"delta":{}, "finish_reason" : "stop"}]}',
      expected: false,
    },
    { name: "reasoning", data: JSON.stringify(chunk({ reasoning: "r" })), expected: false },
    {
      name: "tool calls",
      data: JSON.stringify(chunk({ tool_calls: [{ index: 0, id: "c" }] })),
      expected: false,
    },
    { name: "annotations", data: JSON.stringify(chunk({ annotations: [] })), expected: false },
    {
      name: "Perplexity's citations",
      data: JSON.stringify({ ...rich("x"), citations: ["u"] }),
      expected: false,
    },
    {
      name: "content parts",
      data: JSON.stringify(chunk({ content: [{ type: "text", text: "x" }] })),
      expected: false,
    },
    {
      name: "logprobs (their content list is no content parts)",
      data: JSON.stringify({
        ...rich("x"),
        choices: [{
          index: 0,
          delta: { content: "x" },
          logprobs: { content: [{ token: "x", logprob: -0.1 }], refusal: null },
        }],
      }),
      expected: true,
    },
    {
      name: "content parts beside logprobs",
      data: JSON.stringify({
        ...rich("x"),
        choices: [{
          index: 0,
          logprobs: { refusal: null, content: [] },
          delta: { content: [{ type: "text", text: "x" }] },
        }],
      }),
      expected: false,
    },
    {
      name: "a delta of another choice than the first",
      data: JSON.stringify({ ...rich("x"), choices: [{ index: 1, delta: { content: "x" } }] }),
      expected: false,
    },
    {
      name: "reasoning only in reasoning_details (Snowflake)",
      data: JSON.stringify(chunk({ reasoning_details: [{ type: "reasoning.text", text: "r" }] })),
      expected: false,
    },
    {
      name: "reasoning_details: [] (OpenRouter, on every chunk)",
      data: JSON.stringify(chunk({ content: "x", reasoning_details: [] })),
      expected: true,
    },
    { name: "no choices", data: JSON.stringify({ id: "x", choices: [] }), expected: false },
    {
      name: "choices: null",
      data: JSON.stringify({ id: "x", choices: null, delta: {} }),
      expected: false,
    },
    {
      name: "a choice without a delta",
      data: JSON.stringify({ id: "x", choices: [{ index: 0 }] }),
      expected: false,
    },
    {
      name: "text escaped as \\uXXXX (Python's ensure_ascii)",
      data: '{"choices":[{"index":0,"delta":{"content":"caf\\u00e9"}}]}',
      expected: true,
    },
    {
      name: "a key spelled with escapes",
      data: '{"choices":[{"index":0,"delta":{"content":"x"}}],"\\u0065rror":{"message":"m"}}',
      expected: false,
    },
    {
      name: "the legacy function_call (the relay sends it as a tool call)",
      data: JSON.stringify(chunk({ function_call: { arguments: "{}" } })),
      expected: false,
    },
    { name: "two data lines", data: `${clean}\n${clean}`, expected: false },
    { name: "not an object", data: "[DONE]", expected: false },
    { name: "cut short", data: clean.slice(0, -3), expected: false },
  ])("$name: $expected", ({ data, expected }) => {
    expect(forwardable(data)).toBe(expected);
  });

  test("no text inside the answer can hide an error, usage or a finish reason", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.constantFrom<Array<(text: string) => unknown>>(
          (text) => ({ ...chunk({ content: text }), error: { message: "m" } }),
          (text) => ({ ...chunk({ content: text }), usage: { total_tokens: 1 } }),
          (text) => chunk({ content: text }, "stop"),
        ),
        (text, make) => {
          expect(forwardable(JSON.stringify(make(text)))).toBe(false);
          expect(forwardable(JSON.stringify(chunk({ content: text })))).toBe(
            !/"(?:error|reasoning|tool_calls|annotations|citations|search_results)"/.test(
              JSON.stringify(text),
            ),
          );
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });
});
