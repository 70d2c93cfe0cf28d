import { describe, expect, test } from "vitest";
import { streamChat } from "../../src/client/stream_chat.ts";
import { BASE_URL, sseReply, useMockUpstream } from "../support/msw.ts";
import { chunk, collect, DONE, ofType, sse, usageChunk } from "../support/sse.ts";
import { BODY, options } from "../support/chat.ts";
import { useFakeClock } from "../support/clock.ts";
import { fixture } from "./protocol_replay.ts";

const upstream = useMockUpstream();

/** Streams `body` once and returns events and result; asserts one request was made. */
async function run(body: string) {
  upstream.reply(sseReply(body));
  const { events, result, error } = await collect(streamChat(options()));
  expect(error).toBeUndefined();
  expect(upstream.count).toBe(1);
  return { events, result: result! };
}

describe("accumulation (recorded streams)", () => {
  test("text: content concatenated across multi-byte characters; id, model, usage with cached tokens", async () => {
    const { events, result } = await run(fixture("openai_text.sse"));
    expect(result).toMatchObject({
      id: "chatcmpl-AbC123",
      model: "gpt-4o-mini-2024-07-18",
      content: "Café 日本語 🦀 — done.",
      reasoning: "",
      toolCalls: [],
      finishReason: "stop",
      providerFinishReason: "stop",
      attempts: 1,
    });
    expect(result.refusal).toBeUndefined();
    expect(result.usage).toMatchObject({
      inputTokens: 1200,
      outputTokens: 9,
      totalTokens: 1209,
      cachedInputTokens: 1024,
      reasoningTokens: 0,
    });
    expect((result.usage!.raw as { prompt_tokens: number }).prompt_tokens).toBe(1200);
    expect(ofType(events, "text").map((e) => e.text)).toEqual([
      "Café",
      " 日本語",
      " 🦀 — ",
      "done.",
    ]);
    expect(events.map((e) => e.type)).toEqual([
      "open",
      "text",
      "text",
      "text",
      "text",
      "usage",
      "finish",
    ]);
    expect(ofType(events, "usage")[0]!.usage).toBe(result.usage);
    expect(ofType(events, "finish")[0]!.result).toBe(result);
  });

  test("reasoning from `delta.reasoning` (OpenRouter), pings ignored, reasoning tokens", async () => {
    const { events, result } = await run(fixture("openrouter_reasoning.sse"));
    expect(result.reasoning).toBe("The user greets in French — réponds");
    expect(result.content).toBe("Bonjour ! 👋");
    expect(result.usage?.reasoningTokens).toBe(18);
    expect(result.usage?.cachedInputTokens).toBeUndefined();
    expect(result.finishReason).toBe("stop");
    expect(ofType(events, "reasoning").map((e) => e.text)).toEqual([
      "The user greets",
      " in French — réponds",
    ]);
  });

  test("reasoning from `delta.reasoning_content` (DeepSeek)", async () => {
    const { events, result } = await run(fixture("deepseek_reasoning.sse"));
    expect(result.reasoning).toBe("2 + 2 is 4.");
    expect(result.content).toBe("4");
    expect(result.usage).toMatchObject({ inputTokens: 12, outputTokens: 30, reasoningTokens: 27 });
    expect(events.map((e) => e.type)).toEqual([
      "open",
      "reasoning",
      "reasoning",
      "text",
      "usage",
      "finish",
    ]);
  });

  test("a gateway sending both reasoning names with the same text is taken once", async () => {
    const { result } = await run(
      sse(chunk({ reasoning_content: "think", reasoning: "think" })) +
        sse(chunk({ content: "ok" }, "stop")) + DONE,
    );
    expect(result.reasoning).toBe("think");
  });

  test("refusal text is assembled apart from the content", async () => {
    const { events, result } = await run(fixture("openai_refusal.sse"));
    expect(result.refusal).toBe("I’m sorry, I can’t help with that.");
    expect(result.content).toBe("");
    expect(ofType(events, "text")).toEqual([]);
  });

  test("parallel tool calls: id and name once, argument fragments concatenated per index", async () => {
    const { events, result } = await run(fixture("openai_tools.sse"));
    expect(result.toolCalls).toEqual([
      { index: 0, id: "call_weather_oslo", name: "get_weather", arguments: '{"city": "Oslo"}' },
      { index: 1, id: "call_weather_kyiv", name: "get_weather", arguments: '{"city": "Київ"}' },
    ]);
    expect(result.finishReason).toBe("tool_calls");
    expect(result.content).toBe("");
    expect(ofType(events, "tool-call")).toEqual([
      { type: "tool-call", index: 0, id: "call_weather_oslo", name: "get_weather" },
      { type: "tool-call", index: 1, id: "call_weather_kyiv", name: "get_weather" },
    ]);
    expect(ofType(events, "tool-call-delta").map((e) => [e.index, e.argumentsDelta])).toEqual([
      [0, '{"ci'],
      [0, 'ty": "Oslo"}'],
      [1, '{"city": '],
      [1, '"Київ"}'],
    ]);
  });

  test("Ollama-style index reuse: a new id at index 0 starts a new tool call", async () => {
    const { result } = await run(fixture("ollama_tools.sse"));
    expect(result.toolCalls).toEqual([
      { index: 0, id: "call_a1b2c3d4", name: "get_time", arguments: '{"zone":"Europe/Oslo"}' },
      { index: 1, id: "call_e5f6g7h8", name: "get_time", arguments: '{"zone":"Asia/Tokyo"}' },
    ]);
    expect(result.finishReason).toBe("tool_calls");
    expect(result.usage).toMatchObject({ inputTokens: 150, outputTokens: 40, totalTokens: 190 });
  });

  test("a tool call without an index goes to index 0; extra_content is kept", async () => {
    const extra = { google: { thought_signature: "sig==" } };
    const { result } = await run(
      sse(chunk({
        tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{" } }],
      })) +
        sse(chunk({ tool_calls: [{ function: { arguments: "}" } }] })) +
        sse(chunk({ tool_calls: [{ index: 0, extra_content: extra }] }, "tool_calls")) + DONE,
    );
    expect(result.toolCalls).toEqual([{ index: 0, id: "c1", name: "f", arguments: "{}", extra }]);
    // What the next turn sends back (docs/output.md): Gemini refuses a turn whose tool call lost
    // its thought signature.
    const message = result.output as { tool_calls?: Record<string, unknown>[] };
    expect(message.tool_calls).toEqual([{
      id: "c1",
      type: "function",
      function: { name: "f", arguments: "{}" },
      extra_content: extra,
    }]);
  });

  test("Perplexity's citations take their titles from search_results when it sends them", async () => {
    // Perplexity's shape: every chunk repeats the top-level `citations` (URLs) and, when it
    // sends them, `search_results` (title, url, date, snippet).
    const found = { title: "Oslo weather", url: "https://a.example/oslo", date: "2025-01-01" };
    const top = { citations: [found.url, "https://b.example/"], search_results: [found] };
    const { result } = await run(
      sse({ ...chunk({ role: "assistant", content: "Cold [1][2]." }), ...top }) +
        sse({ ...chunk({}, "stop"), ...top }) + DONE,
    );
    expect(result.citations).toEqual([
      { url: found.url, title: "Oslo weather", source: found },
      { url: "https://b.example/", source: "https://b.example/" },
    ]);
  });

  test("truncated tool arguments turn the finish reason into length", async () => {
    const { result } = await run(
      sse(
        chunk({
          tool_calls: [{ index: 0, id: "c1", function: { name: "f", arguments: '{"a":' } }],
        }),
      ) +
        sse(chunk({}, "tool_calls")) + DONE,
    );
    expect(result.toolCalls[0]!.arguments).toBe('{"a":');
    expect(result.finishReason).toBe("length");
    expect(result.providerFinishReason).toBe("tool_calls");
  });

  test("a complete stream that says stop with unfinished tool arguments is still length", async () => {
    const { result } = await run(
      sse(
        chunk({
          tool_calls: [{ index: 0, id: "c1", function: { name: "f", arguments: '{"a":[1,' } }],
        }),
      ) +
        sse(chunk({}, "stop")) + DONE,
    );
    expect(result.partial).toBeUndefined();
    expect([result.finishReason, result.providerFinishReason]).toEqual(["length", "stop"]);
  });

  test("a provider's own finish reason error is kept (OpenRouter), not turned into stop", async () => {
    const { result } = await run(sse(chunk({ content: "Hal" }, "error")) + DONE);
    expect([result.finishReason, result.providerFinishReason]).toEqual(["error", "error"]);
  });

  test("[DONE] without a finish reason means stop", async () => {
    const { result } = await run(sse(chunk({ content: "ok" })) + DONE);
    expect(result.content).toBe("ok");
    expect(result.finishReason).toBe("stop");
  });

  test("finish reasons are normalised; the provider's own value is kept", async () => {
    const { result } = await run(
      sse(chunk({ function_call: { name: "f", arguments: "{}" } }, "function_call")) + DONE,
    );
    expect(result.finishReason).toBe("tool_calls");
    expect(result.providerFinishReason).toBe("function_call");
    const other = await (async () => {
      upstream.reset();
      return (await run(sse(chunk({ content: "x" }, "eos_token")) + DONE)).result;
    })();
    // Unknown values fall back to "stop": callers can switch over four values only.
    expect(other.finishReason).toBe("stop");
    expect(other.providerFinishReason).toBe("eos_token");
  });

  test("the legacy function_call is a tool call, events included, and the output keeps its shape", async () => {
    const { events, result } = await run(
      sse(chunk({ role: "assistant", content: null, function_call: { name: "get_weather" } })) +
        sse(chunk({ function_call: { arguments: '{"city":' } })) +
        sse(chunk({ function_call: { arguments: '"Oslo"}' } })) +
        sse(chunk({}, "function_call")) + DONE,
    );
    expect(result.toolCalls).toEqual([
      expect.objectContaining({ name: "get_weather", arguments: '{"city":"Oslo"}' }),
    ]);
    expect(ofType(events, "tool-call").map((e) => e.name)).toEqual(["get_weather"]);
    expect(ofType(events, "tool-call-delta").map((e) => e.argumentsDelta).join("")).toBe(
      '{"city":"Oslo"}',
    );
    // Sent back as it came: the functions API has no tool call ids to match.
    expect(result.output).toEqual({
      role: "assistant",
      content: null,
      function_call: { name: "get_weather", arguments: '{"city":"Oslo"}' },
    });
  });

  test("a function_call beside tool_calls: the output keeps both, as tool_calls", async () => {
    const { result } = await run(
      sse(chunk({
        tool_calls: [{ index: 0, id: "call_a", function: { name: "a", arguments: "{}" } }],
      })) +
        sse(chunk({ function_call: { name: "b", arguments: '{"x":1}' } })) +
        sse(chunk({}, "tool_calls")) + DONE,
    );
    expect(result.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ["call_a", "a", "{}"],
      ["", "b", '{"x":1}'],
    ]);
    const output = result.output as { tool_calls?: unknown[]; function_call?: unknown };
    expect(output.function_call).toBeUndefined();
    expect(output.tool_calls).toHaveLength(2);
  });

  test("only choice 0 is assembled when n > 1 interleaves choices", async () => {
    const second = (delta: Record<string, unknown>, finish: string | null = null) => ({
      ...chunk(delta, finish),
      choices: [{ index: 1, delta, finish_reason: finish }],
    });
    const { result } = await run(
      sse(second({ content: "B" })) + sse(chunk({ content: "A" })) +
        sse(second({ content: "B" }, "length")) + sse(chunk({ content: "A" }, "stop")) + DONE,
    );
    expect(result.content).toBe("AA");
    expect(result.finishReason).toBe("stop");
  });

  test("usage without details, and totalTokens computed when missing", async () => {
    const { result } = await run(
      sse(chunk({ content: "ok" }, "stop")) +
        sse(usageChunk({ prompt_tokens: 3, completion_tokens: 2 })) + DONE,
    );
    expect(result.usage).toEqual({
      inputTokens: 3,
      outputTokens: 2,
      totalTokens: 5,
      raw: { prompt_tokens: 3, completion_tokens: 2 },
    });
  });

  test("result only (nobody iterates) assembles the same result", async () => {
    upstream.reply(sseReply(fixture("openai_tools.sse")));
    const { trace: _a, ...alone } = await streamChat(options()).result;
    upstream.reset();
    const { trace: _b, ...result } = (await run(fixture("openai_tools.sse"))).result!;
    expect(alone).toEqual(result);
  });
});

describe("the request", () => {
  useFakeClock();

  test("posts the body unchanged plus the streaming flags, with the key and headers", async () => {
    upstream.reply(sseReply(sse(chunk({ content: "ok" }, "stop")) + DONE));
    const body = { model: "m", messages: [{ role: "user", content: "Hi" }], temperature: 0 };
    await streamChat({
      baseURL: `${BASE_URL}/`,
      apiKey: "sk-test",
      headers: { "x-title": "stopstream", "content-type": "application/json; charset=utf-8" },
      body,
    }).result;
    const [seen] = upstream.requests;
    expect(seen!.url).toBe(`${BASE_URL}/chat/completions`);
    expect(seen!.body).toEqual({ ...body, stream: true, stream_options: { include_usage: true } });
    expect(seen!.headers.get("authorization")).toBe("Bearer sk-test");
    expect(seen!.headers.get("x-title")).toBe("stopstream");
    expect(seen!.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(seen!.headers.get("accept")).toBe("text/event-stream");
    // The caller's object is not modified.
    expect(body).not.toHaveProperty("stream");
    expect(upstream.count).toBe(1);
  });

  test("a caller's stream_options.include_usage is respected", async () => {
    upstream.reply(sseReply(sse(chunk({ content: "ok" }, "stop")) + DONE));
    await streamChat(options({
      body: { ...BODY, stream: true, stream_options: { include_usage: false } },
    })).result;
    expect(upstream.requests[0]!.body).toMatchObject({
      stream: true,
      stream_options: { include_usage: false },
    });
    expect(upstream.count).toBe(1);
  });

  test("nothing is sent until the stream is iterated or its result awaited", async () => {
    upstream.reply(sseReply(sse(chunk({ content: "ok" }, "stop")) + DONE));
    const stream = streamChat(options());
    await upstream.expectNoMoreRequests();
    expect(upstream.count).toBe(0);
    await stream.result;
    expect(upstream.count).toBe(1);
  });
});
