import { describe, expect, it } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import { ANTHROPIC_STREAM, RESPONSES_STREAM } from "../support/protocol_streams.ts";
import {
  chatBody,
  contentOf,
  deltaOf,
  fakeUpstream,
  parseSSE,
  postChat,
  sseResponse,
} from "./helpers.ts";

const TOOLS = [{
  type: "function",
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } } },
  },
}];

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
