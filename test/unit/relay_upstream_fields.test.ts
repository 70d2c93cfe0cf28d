/**
 * What an `openai-chat` upstream sends that the client's events do not carry, and a relay caller
 * must still get as the provider sent it: Gemini's `extra_content` on a tool call (its
 * `thought_signature`, without which Gemini 3 refuses the next turn), OpenRouter's
 * `reasoning_details` (signed reasoning) and the choices' `logprobs`.
 */
import { describe, expect, test } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import { recordedEvents, recording } from "../support/recorded.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

function relay(body: string) {
  return createRelay({
    upstreams: [{ baseURL: "https://up.test/v1", apiKey: "sk-up-secret-0123456789" }],
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    fetch: () =>
      Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } })),
  });
}

async function post(
  app: ReturnType<typeof createRelay>,
  stream: boolean,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const response = await app.request("http://relay.test/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "Hi" }],
      stream,
      ...extra,
    }),
  });
  expect(response.status).toBe(200);
  return await response.text();
}

/** The JSON chunks a streaming caller received. */
function chunks(raw: string): Any[] {
  return raw.split("\n").filter((l) => l.startsWith("data: {")).map((l) => JSON.parse(l.slice(6)));
}

// Shape: a Gemini 3.1 streamed tool-call chunk through its OpenAI-compatible endpoint (public
// test data; https://ai.google.dev/gemini-api/docs/thought-signatures, "OpenAI compatibility").
const GEMINI =
  `data: {"choices":[{"delta":{"index":0,"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"Eo4GCosG==="}},"function":{"arguments":"{}","name":"task"},"id":"FL1tqiJ9","type":"function"}]},"finish_reason":"tool_calls","index":0}],"model":"models/gemini-3.1-flash-lite","object":"chat.completion.chunk","created":1790000000,"id":"gem-1"}\n\n` +
  "data: [DONE]\n\n";
const SIGNATURE = { google: { thought_signature: "Eo4GCosG===" } };

// openai/openai-python, .inline-snapshot/external/83b060bae42e…bin @ e43b422412a9
// (tests/lib/chat/test_completions_streaming.py, test_content_logprobs_events; Apache-2.0).
const LOGPROBS = [
  `{"id":"chatcmpl-ABfw5EzoqmfXjnnsXY7Yd8OC6tb3c","object":"chat.completion.chunk","created":1727346173,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":{"content":[],"refusal":null},"finish_reason":null}]}`,
  `{"id":"chatcmpl-ABfw5EzoqmfXjnnsXY7Yd8OC6tb3c","object":"chat.completion.chunk","created":1727346173,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"content":"Foo"},"logprobs":{"content":[{"token":"Foo","logprob":-0.0025094282,"bytes":[70,111,111],"top_logprobs":[]}],"refusal":null},"finish_reason":null}]}`,
  `{"id":"chatcmpl-ABfw5EzoqmfXjnnsXY7Yd8OC6tb3c","object":"chat.completion.chunk","created":1727346173,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{"content":"!"},"logprobs":{"content":[{"token":"!","logprob":-0.26638845,"bytes":[33],"top_logprobs":[]}],"refusal":null},"finish_reason":null}]}`,
  `{"id":"chatcmpl-ABfw5EzoqmfXjnnsXY7Yd8OC6tb3c","object":"chat.completion.chunk","created":1727346173,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`,
  `{"id":"chatcmpl-ABfw5EzoqmfXjnnsXY7Yd8OC6tb3c","object":"chat.completion.chunk","created":1727346173,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_5050236cbd","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11,"completion_tokens_details":{"reasoning_tokens":0}}}`,
].map((d) => `data: ${d}\n\n`).join("") + "data: [DONE]\n\n";

describe("a tool call's extra_content (Gemini's thought_signature)", () => {
  test("reaches a streaming caller on the call's first chunk", async () => {
    const calls = chunks(await post(relay(GEMINI), true))
      .flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ id: "FL1tqiJ9", extra_content: SIGNATURE });
  });

  test("is in a non-streaming caller's chat.completion", async () => {
    const completion = JSON.parse(await post(relay(GEMINI), false));
    expect(completion.choices[0].message.tool_calls[0].extra_content).toEqual(SIGNATURE);
  });
});

describe("OpenRouter's reasoning_details (test/recorded/chat/openrouter_reasoning_details.sse)", () => {
  const signatures = (details: Any[]) => details.map((d) => d.signature ?? "").join("");

  test("reach a streaming caller, fragment by fragment, signature included", async () => {
    const raw = await post(relay(recording("chat/openrouter_reasoning_details.sse")), true);
    const details = chunks(raw).flatMap((c) => c.choices?.[0]?.delta?.reasoning_details ?? []);
    expect(signatures(details)).toMatch(/^Et0BCkgIChACGAIq/);
    // And the reasoning text beside them is not sent twice.
    const reasoning = chunks(raw).map((c) => c.choices?.[0]?.delta?.reasoning_content ?? "").join(
      "",
    );
    const text = details.map((d) => d.text ?? "").join("");
    expect(reasoning).toBe(text);
  });

  test("are in a non-streaming caller's message, merged", async () => {
    const raw = await post(relay(recording("chat/openrouter_reasoning_details.sse")), false);
    const details = JSON.parse(raw).choices[0].message.reasoning_details;
    expect(signatures(details)).toMatch(/^Et0BCkgIChACGAIq/);
  });
});

describe("logprobs", () => {
  test("reach a streaming caller for every token, the first (written by the relay) included", async () => {
    const tokens = chunks(await post(relay(LOGPROBS), true, { logprobs: true }))
      .flatMap((c) => c.choices?.[0]?.logprobs?.content ?? []).map((t: Any) => t.token);
    expect(tokens).toEqual(["Foo", "!"]);
  });
});

describe("logprobs, held whole (stream: false)", () => {
  test("are the chat.completion's logprobs, every token in order", async () => {
    const completion = JSON.parse(await post(relay(LOGPROBS), false, { logprobs: true }));
    const tokens = completion.choices[0].logprobs.content.map((t: Any) => t.token);
    expect(tokens).toEqual(["Foo", "!"]);
    expect(completion.choices[0].message.content).toBe("Foo!");
  });

  test("are null when the upstream sent none", async () => {
    const completion = JSON.parse(await post(relay(GEMINI), false));
    expect(completion.choices[0].logprobs).toBeNull();
  });
});

/**
 * A relay whose upstream answers the n-th request with `bodies[n - 1]` (the last after); a
 * function gives a fresh body for each request.
 */
function relayOf(
  bodies: Array<string | (() => ReadableStream<Uint8Array>)>,
  extra: Record<string, unknown> = {},
) {
  let calls = 0;
  return createRelay({
    upstreams: [{ baseURL: "https://up.test/v1", apiKey: "sk-up-secret-0123456789" }],
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    ...extra,
    fetch: () => {
      const body = bodies[Math.min(calls++, bodies.length - 1)]!;
      return Promise.resolve(
        new Response(typeof body === "function" ? body() : body, {
          headers: { "content-type": "text/event-stream" },
        }),
      );
    },
  });
}

/** Tool-call deltas joined per call index: the first id, the arguments, every extra_content. */
function callsByIndex(deltas: Any[]) {
  const calls = new Map<number, { id?: string; args: string; extras: unknown[] }>();
  for (const call of deltas) {
    const seen = calls.get(call.index) ?? { args: "", extras: [] };
    seen.id ??= call.id;
    seen.args += call.function?.arguments ?? "";
    if (call.extra_content !== undefined) seen.extras.push(call.extra_content);
    calls.set(call.index, seen);
  }
  return calls;
}

/** `text`'s SSE events one per read, as a network delivers them (nothing read ahead). */
function oneEventPerRead(text: string): ReadableStream<Uint8Array> {
  const events = text.split(/(?<=\n\n)/);
  const bytes = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = events.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(bytes.encode(next));
    },
  }, { highWaterMark: 0 });
}

const sseOf = (...events: unknown[]) =>
  events.map((e) => `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`).join("");
const chunkOf = (
  id: string,
  delta: Record<string, unknown>,
  more: Record<string, unknown> = {},
) => ({
  id,
  object: "chat.completion.chunk",
  created: 1,
  model: "m",
  choices: [{ index: 0, delta, finish_reason: null, ...more }],
});
const ENCRYPTED = (data: string) => [{ type: "reasoning.encrypted", data, index: 0, format: "x" }];

describe("upstream fields and the relay's own chunks, found in review", () => {
  test("what an attempt that failed before the first delta sent goes nowhere; the answer has one id", async () => {
    // Attempt 1: an encrypted reasoning block and no text, then the body ends (a cut: retried).
    const first = sseOf(
      chunkOf("gen-1", { role: "assistant", content: "", reasoning_details: ENCRYPTED("A1") }),
    );
    const second = sseOf(
      chunkOf("gen-2", { role: "assistant", content: "Hi" }),
      chunkOf("gen-2", { content: " there" }),
      chunkOf("gen-2", {}, { finish_reason: "stop" }),
      "[DONE]",
    );
    const raw = await post(relayOf([first, second]), true);
    expect(raw).not.toContain("A1");
    expect(new Set(chunks(raw).map((c) => c.id))).toEqual(new Set(["gen-2"]));
    expect(chunks(raw).map((c) => c.choices?.[0]?.delta?.content ?? "").join("")).toBe("Hi there");
  });

  test("what came before the first delta goes on the first delta, not on a chunk of its own", async () => {
    const body = sseOf(
      chunkOf("gen-1", { role: "assistant", content: "", reasoning_details: ENCRYPTED("E1") }),
      chunkOf("gen-1", { content: "Hi", reasoning_details: [] }),
      chunkOf("gen-1", {}, { finish_reason: "stop" }),
      "[DONE]",
    );
    const all = chunks(await post(relayOf([body]), true));
    expect(all[0].choices[0].delta).toMatchObject({
      role: "assistant",
      content: "Hi",
      reasoning_details: ENCRYPTED("E1"),
    });
  });

  test("OpenRouter's empty reasoning_details on every chunk add no chunk", async () => {
    const body = sseOf(
      chunkOf("gen-1", { role: "assistant", content: "", reasoning: "", reasoning_details: [] }),
      chunkOf("gen-1", { content: "Hi", reasoning: null, reasoning_details: [] }),
      chunkOf("gen-1", { content: "!", reasoning: null, reasoning_details: [] }),
      chunkOf("gen-1", {}, { finish_reason: "stop" }),
      "[DONE]",
    );
    const all = chunks(await post(relayOf([body]), true));
    // The first delta, "!", the finish: nothing else.
    expect(all.map((c) => c.choices[0]?.delta?.content ?? c.choices[0]?.finish_reason)).toEqual([
      "Hi",
      "!",
      "stop",
    ]);
  });

  test("Gemini's extra_content on a text delta reaches a streaming caller", async () => {
    const signature = { google: { thought_signature: "Cr0B" } };
    const body = sseOf(
      chunkOf("gen-1", { role: "assistant", content: "Hi", extra_content: signature }),
      chunkOf("gen-1", {}, { finish_reason: "stop" }),
      "[DONE]",
    );
    const all = chunks(await post(relayOf([body]), true));
    expect(all[0].choices[0].delta.extra_content).toEqual(signature);
  });

  test("a tool call's extra_content on a later fragment reaches a streaming caller, once", async () => {
    const signature = { google: { thought_signature: "Zm9v" } };
    const call = (fn: Record<string, unknown>, more: Record<string, unknown> = {}) =>
      chunkOf("gen-1", { tool_calls: [{ index: 0, function: fn, ...more }] });
    const streamed = async (fragments: unknown[]) => {
      const body = sseOf(
        chunkOf("gen-1", {
          role: "assistant",
          tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "f" } }],
        }),
        ...fragments,
        chunkOf("gen-1", {}, { finish_reason: "tool_calls" }),
        "[DONE]",
      );
      // The call's first chunk is written before the fragment with its extra_content arrived.
      const all = chunks(await post(relayOf([() => oneEventPerRead(body)]), true));
      const parts = all.flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
      return {
        extras: parts.filter((p: Any) => p.extra_content !== undefined).map((p: Any) =>
          p.extra_content
        ),
        args: parts.map((p: Any) => p.function?.arguments ?? "").join(""),
        finish: all.at(-1).choices[0].finish_reason,
      };
    };
    // With the arguments' second fragment, as a gateway that adds it late might send it.
    expect(
      await streamed([
        call({ arguments: '{"a":' }),
        call({ arguments: "1}" }, { extra_content: signature }),
      ]),
    ).toEqual({ extras: [signature], args: '{"a":1}', finish: "tool_calls" });
    // On a fragment of its own, with no arguments: it goes out before the finish chunk.
    expect(
      await streamed([
        call({ arguments: '{"a":1}' }),
        chunkOf("gen-1", { tool_calls: [{ index: 0, extra_content: signature }] }),
      ]),
    ).toEqual({ extras: [signature], args: '{"a":1}', finish: "tool_calls" });
  });

  test("a real parallel-tools stream, one event per read, with extra_content spliced into a later fragment", async () => {
    // test/recorded/chat/openai_parallel_tools.sse (openai-python's recorded data, SOURCES.md),
    // verbatim but for Gemini's documented extra_content on call 1's second fragment.
    const signature = { google: { thought_signature: "Q2FsbDE=" } };
    const events = recordedEvents("chat/openai_parallel_tools.sse");
    let fragments = 0;
    const spliced = events.map((event) => {
      if (!event.startsWith("data: {")) return event;
      const chunk = JSON.parse(event.slice(6));
      const call = chunk.choices?.[0]?.delta?.tool_calls?.[0];
      if (call?.index !== 1 || ++fragments !== 2) return event;
      call.extra_content = signature;
      return `data: ${JSON.stringify(chunk)}\n\n`;
    });
    expect(fragments).toBeGreaterThan(2);
    const deltasOf = (data: Any[]) => data.flatMap((c) => c.choices?.[0]?.delta?.tool_calls ?? []);
    const recorded = callsByIndex(
      deltasOf(events.filter((e) => e.startsWith("data: {")).map((e) => JSON.parse(e.slice(6)))),
    );
    const body = spliced.join("");
    const relayed = callsByIndex(
      deltasOf(chunks(await post(relayOf([() => oneEventPerRead(body)]), true))),
    );
    expect(recorded.get(1)?.extras).toEqual([]);
    expect([...relayed]).toEqual([
      [0, recorded.get(0)],
      [1, { ...recorded.get(1), extras: [signature] }],
    ]);
  });

  test("logprobs with keys an object inherits (constructor) are joined like any other", async () => {
    const body = sseOf(
      chunkOf("gen-1", { role: "assistant", content: "Hi" }, {
        logprobs: { constructor: [1], toString: [2], content: [{ token: "Hi" }] },
      }),
      chunkOf("gen-1", {}, { finish_reason: "stop" }),
      "[DONE]",
    );
    const completion = JSON.parse(await post(relayOf([body]), false, { logprobs: true }));
    expect(completion.choices[0].logprobs).toEqual({ content: [{ token: "Hi" }] });
  });

  test("stream: false: an answer from a fallback of another protocol has none of the primary's logprobs", async () => {
    const anthropic = [
      {
        type: "message_start",
        message: {
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude",
          content: [],
          usage: { input_tokens: 1, output_tokens: 0 },
        },
      },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Bar" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 } },
      { type: "message_stop" },
    ].map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
    // The primary streams a token with its logprobs, then is cut (no finish, no [DONE]).
    const cut = sseOf(chunkOf("gen-1", { role: "assistant", content: "Foo" }, {
      logprobs: { content: [{ token: "Foo" }] },
    }));
    const app = createRelay({
      upstreams: [
        { baseURL: "https://openai.test/v1", apiKey: "sk-up-secret-0123456789" },
        { baseURL: "https://anthropic.test/v1", protocol: "anthropic-messages", model: "claude" },
      ],
      maxRetries: 0,
      fetch: (input) =>
        Promise.resolve(
          new Response(String(input).includes("anthropic") ? anthropic : cut, {
            headers: { "content-type": "text/event-stream" },
          }),
        ),
    });
    const completion = JSON.parse(await post(app, false, { logprobs: true }));
    expect(completion.choices[0].message.content).toBe("Bar");
    expect(completion.choices[0].logprobs).toBeNull();
  });
});
