import { describe, expect, it } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import {
  chatBody,
  contentOf,
  deltaOf,
  fakeUpstream,
  parseSSE,
  postChat,
  sse,
  sseResponse,
} from "./helpers.ts";

const TOOLS = [{
  type: "function",
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
}];

const ANTHROPIC_STREAM = [
  sse({
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-x",
      content: [],
      usage: { input_tokens: 11, output_tokens: 1 },
    },
  }, "message_start"),
  sse(
    { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } },
    "content_block_start",
  ),
  sse({
    type: "content_block_delta",
    index: 0,
    delta: { type: "thinking_delta", thinking: "Let me see." },
  }, "content_block_delta"),
  sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
  sse(
    { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
    "content_block_start",
  ),
  sse(
    { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Hello" } },
    "content_block_delta",
  ),
  sse({ type: "ping" }, "ping"),
  sse({
    type: "content_block_delta",
    index: 1,
    delta: { type: "text_delta", text: " from Claude" },
  }, "content_block_delta"),
  sse({ type: "content_block_stop", index: 1 }, "content_block_stop"),
  sse({
    type: "content_block_start",
    index: 2,
    content_block: { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} },
  }, "content_block_start"),
  sse({
    type: "content_block_delta",
    index: 2,
    delta: { type: "input_json_delta", partial_json: '{"city":' },
  }, "content_block_delta"),
  sse({
    type: "content_block_delta",
    index: 2,
    delta: { type: "input_json_delta", partial_json: '"Oslo"}' },
  }, "content_block_delta"),
  sse({ type: "content_block_stop", index: 2 }, "content_block_stop"),
  sse(
    { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 21 } },
    "message_delta",
  ),
  sse({ type: "message_stop" }, "message_stop"),
];

const RESPONSES_STREAM = [
  sse({
    type: "response.created",
    response: { id: "resp_1", model: "gpt-r", status: "in_progress", output: [] },
  }, "response.created"),
  sse({
    type: "response.output_item.added",
    output_index: 0,
    item: { type: "reasoning", id: "rs_1", summary: [] },
  }, "response.output_item.added"),
  sse({
    type: "response.reasoning_summary_text.delta",
    item_id: "rs_1",
    output_index: 0,
    summary_index: 0,
    delta: "Thinking.",
  }, "response.reasoning_summary_text.delta"),
  sse({
    type: "response.output_item.added",
    output_index: 1,
    item: { type: "message", id: "msg_1", role: "assistant", content: [] },
  }, "response.output_item.added"),
  sse({
    type: "response.output_text.delta",
    item_id: "msg_1",
    output_index: 1,
    content_index: 0,
    delta: "Hello",
  }, "response.output_text.delta"),
  sse({
    type: "response.output_text.delta",
    item_id: "msg_1",
    output_index: 1,
    content_index: 0,
    delta: " from Responses",
  }, "response.output_text.delta"),
  sse({
    type: "response.output_item.added",
    output_index: 2,
    item: {
      type: "function_call",
      id: "fc_1",
      call_id: "call_1",
      name: "get_weather",
      arguments: "",
    },
  }, "response.output_item.added"),
  sse({
    type: "response.function_call_arguments.delta",
    item_id: "fc_1",
    output_index: 2,
    delta: '{"city":"Oslo"}',
  }, "response.function_call_arguments.delta"),
  sse({
    type: "response.completed",
    response: {
      id: "resp_1",
      model: "gpt-r",
      status: "completed",
      output: [{
        type: "function_call",
        id: "fc_1",
        call_id: "call_1",
        name: "get_weather",
        arguments: '{"city":"Oslo"}',
      }],
      usage: { input_tokens: 9, output_tokens: 14, total_tokens: 23 },
    },
  }, "response.completed"),
];

describe("streaming translation per upstream protocol", () => {
  it.each(
    [
      ["anthropic-messages", ANTHROPIC_STREAM, "/v1/messages", "Hello from Claude", "Let me see."],
      ["openai-responses", RESPONSES_STREAM, "/v1/responses", "Hello from Responses", "Thinking."],
    ] as const,
  )(
    "%s streams come out as chat.completion.chunk events",
    async (protocol, events, path, text, thought) => {
      const upstream = fakeUpstream(() => sseResponse([...events]));
      const app = createRelay({
        upstreams: [{
          baseURL: "https://up.test/v1",
          apiKey: "sk-up-0123456789",
          protocol,
          model: "m-up",
        }],
        fetch: upstream.fetch,
      });
      const body = chatBody({
        model: "whatever",
        stream: true,
        stream_options: { include_usage: true },
        tools: TOOLS,
        messages: [{ role: "system", content: "Be brief." }, {
          role: "user",
          content: "Weather in Oslo?",
        }],
      });
      const response = await postChat(app, body);
      expect(response.status).toBe(200);
      const sseBody = parseSSE(await response.text());
      expect(sseBody.done).toBe(true);
      expect(contentOf(sseBody)).toBe(text);
      const deltas = sseBody.data.map((c) => deltaOf(c) ?? {});
      expect(deltas.map((d) => d.reasoning_content ?? "").join("")).toBe(thought);
      const calls = deltas.flatMap((d) =>
        (d.tool_calls as Array<{ id?: string; function: { name?: string; arguments: string } }>) ??
          []
      );
      expect(calls[0]).toEqual(
        expect.objectContaining({
          id: expect.any(String),
          function: { name: "get_weather", arguments: "" },
        }),
      );
      expect(calls.map((c) => c.function.arguments).join("")).toBe('{"city":"Oslo"}');
      const finish = sseBody.data.find((c) =>
        (c.choices as Array<{ finish_reason: string | null }>)[0]?.finish_reason
      );
      expect((finish!.choices as Array<{ finish_reason: string }>)[0]!.finish_reason).toBe(
        "tool_calls",
      );
      const usage = sseBody.data.at(-1)!.usage as {
        prompt_tokens: number;
        completion_tokens: number;
      };
      expect(usage.completion_tokens).toBeGreaterThan(0);
      expect(sseBody.data.every((c) => c.object === "chat.completion.chunk" && c.model === "m-up"))
        .toBe(true);

      // What the upstream saw: its own protocol's request, its own key, the configured model.
      expect(upstream.seen).toHaveLength(1);
      const seen = upstream.seen[0]!;
      expect(new URL(seen.url).pathname).toBe(path);
      expect(seen.body.model).toBe("m-up");
      expect(seen.body.stream).toBe(true);
      if (protocol === "anthropic-messages") {
        expect(seen.headers.get("x-api-key")).toBe("sk-up-0123456789");
        expect(seen.body.system).toBe("Be brief.");
        expect(seen.body.messages).toEqual([{
          role: "user",
          content: [{ type: "text", text: "Weather in Oslo?" }],
        }]);
        expect(seen.body.tools).toEqual([
          expect.objectContaining({ name: "get_weather", input_schema: expect.any(Object) }),
        ]);
        expect(seen.body.max_tokens).toBeGreaterThan(0);
      } else {
        expect(seen.headers.get("authorization")).toBe("Bearer sk-up-0123456789");
        expect(seen.body.input).toEqual([
          { role: "system", content: "Be brief." },
          { role: "user", content: "Weather in Oslo?" },
        ]);
        expect(seen.body.tools).toEqual([
          expect.objectContaining({ type: "function", name: "get_weather" }),
        ]);
      }
    },
  );

  it("stream: false from an Anthropic upstream is one chat.completion", async () => {
    const upstream = fakeUpstream(() => sseResponse([...ANTHROPIC_STREAM]));
    const app = createRelay({
      upstreams: [{
        baseURL: "https://up.test/v1",
        protocol: "anthropic-messages",
        model: "claude-x",
      }],
      fetch: upstream.fetch,
    });
    const response = await postChat(app, chatBody({ stream: false, tools: TOOLS }));
    const completion = (await response.json()) as {
      choices: Array<
        {
          message: { content: string; reasoning_content: string; tool_calls: unknown[] };
          finish_reason: string;
        }
      >;
      usage: { prompt_tokens: number };
    };
    expect(completion.choices[0]!.message.content).toBe("Hello from Claude");
    expect(completion.choices[0]!.message.reasoning_content).toBe("Let me see.");
    expect(completion.choices[0]!.message.tool_calls).toEqual([
      {
        id: "toolu_1",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
      },
    ]);
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    expect(completion.usage.prompt_tokens).toBe(11);
    expect(upstream.seen).toHaveLength(1);
  });
});

describe("fallbacks", () => {
  it("falls back to the second upstream when the first has used up its retries", async () => {
    const upstream = fakeUpstream((request) =>
      request.url.startsWith("https://primary.test/")
        ? Response.json({ error: { message: "overloaded", type: "server_error" } }, { status: 503 })
        : sseResponse([
          sse({
            choices: [{ index: 0, delta: { content: "from the fallback" }, finish_reason: null }],
          }),
          sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
          "data: [DONE]\n\n",
        ])
    );
    const app = createRelay({
      upstreams: [
        {
          baseURL: "https://primary.test/v1",
          apiKey: "sk-primary-0123456789",
          protocol: "anthropic-messages",
          model: "claude-x",
        },
        {
          baseURL: "https://fallback.test/v1",
          apiKey: "sk-fallback-0123456789",
          protocol: "openai-chat",
          model: "gpt-y",
        },
      ],
      maxRetries: 1,
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
      fetch: upstream.fetch,
    });
    const response = await postChat(
      app,
      chatBody({
        stream: true,
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }],
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("x-stopstream-upstream")).toBe("1");
    expect(response.headers.get("x-stopstream-attempts")).toBe("3");
    const body = parseSSE(await response.text());
    expect(contentOf(body)).toBe("from the fallback");
    expect(body.done).toBe(true);
    expect(upstream.seen.map((r) => new URL(r.url).host)).toEqual([
      "primary.test",
      "primary.test",
      "fallback.test",
    ]);
    const fallback = upstream.seen[2]!;
    expect(fallback.headers.get("authorization")).toBe("Bearer sk-fallback-0123456789");
    expect(fallback.headers.get("x-api-key")).toBeNull();
    // The fallback gets an OpenAI body: nothing of the primary's Anthropic translation.
    expect(fallback.body.model).toBe("gpt-y");
    expect(fallback.body).not.toHaveProperty("system");
    expect(fallback.body).not.toHaveProperty("max_tokens");
    expect(fallback.body.messages).toEqual([{ role: "system", content: "Be brief." }, {
      role: "user",
      content: "hi",
    }]);
  });

  it("upstream keys never appear in errors passed to the caller", async () => {
    const key = "sk-secret-abcdefghijkl";
    const upstream = fakeUpstream(() =>
      Response.json({
        error: {
          message: `Incorrect API key provided: ${key}`,
          type: "invalid_request_error",
          code: "invalid_api_key",
        },
      }, { status: 401 })
    );
    const app = createRelay({
      upstreams: [{ baseURL: "https://up.test/v1", apiKey: key }],
      fetch: upstream.fetch,
    });
    const response = await postChat(app, chatBody({ stream: true }));
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(text).toContain("Incorrect API key provided");
    expect(text).not.toContain(key);
    expect(upstream.seen).toHaveLength(1);
  });

  it("a real upstream never receives the caller's x-demo-fault or other caller headers", async () => {
    const upstream = fakeUpstream(() =>
      sseResponse([
        sse({ choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] }),
        "data: [DONE]\n\n",
      ])
    );
    const app = createRelay({
      upstreams: [{ baseURL: "https://up.test/v1" }],
      fetch: upstream.fetch,
    });
    await (await postChat(app, chatBody({ stream: true }), {
      headers: {
        "x-demo-fault": "status=503",
        "x-forwarded-for": "1.2.3.4",
        connection: "keep-alive",
        authorization: "Bearer caller",
      },
    })).text();
    const headers = [...upstream.seen[0]!.headers.keys()];
    expect(headers).not.toContain("x-demo-fault");
    expect(headers).not.toContain("x-demo-attempt");
    expect(headers).not.toContain("x-forwarded-for");
    expect(headers).not.toContain("authorization");
  });
});
