import { describe, expect, it } from "vitest";
import { relayOptionsFromEnv } from "../../src/relay/env.ts";
import { canHonour, translateRequest } from "../../src/relay/translate_request.ts";

const conversation = {
  model: "caller-model",
  stream: true,
  max_tokens: 300,
  stop: "END",
  tool_choice: "required",
  tools: [{
    type: "function",
    function: { name: "lookup", description: "d", parameters: { type: "object" } },
  }],
  messages: [
    { role: "system", content: "Be brief." },
    {
      role: "user",
      content: [
        { type: "text", text: "What is this?" },
        { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
      ],
    },
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_1",
        type: "function",
        function: { name: "lookup", arguments: '{"q":"x"}' },
      }],
    },
    { role: "tool", tool_call_id: "call_1", content: "a cat" },
    { role: "user", content: "Thanks" },
  ],
};

describe("request translation", () => {
  it("OpenAI chat → Anthropic Messages: system, images, tool use and results, limits", () => {
    const body = translateRequest(conversation, "anthropic-messages", "claude-x");
    expect(body).toEqual({
      model: "claude-x",
      system: "Be brief.",
      max_tokens: 300,
      stop_sequences: ["END"],
      tool_choice: { type: "any" },
      tools: [{ name: "lookup", description: "d", input_schema: { type: "object" } }],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } },
          ],
        },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "call_1", name: "lookup", input: { q: "x" } }],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "call_1", content: "a cat" },
            { type: "text", text: "Thanks" },
          ],
        },
      ],
    });
  });

  it("OpenAI chat → Responses: input items, function calls and outputs", () => {
    const body = translateRequest(conversation, "openai-responses", undefined);
    expect(body).toEqual({
      model: "caller-model",
      store: false,
      max_output_tokens: 300,
      tool_choice: "required",
      tools: [{
        type: "function",
        name: "lookup",
        description: "d",
        parameters: { type: "object" },
      }],
      input: [
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "input_text", text: "What is this?" },
            { type: "input_image", image_url: "data:image/png;base64,AAAA" },
          ],
        },
        { type: "function_call", call_id: "call_1", name: "lookup", arguments: '{"q":"x"}' },
        { type: "function_call_output", call_id: "call_1", output: "a cat" },
        { role: "user", content: "Thanks" },
      ],
    });
  });

  it("OpenAI chat stays as it is, minus the stream flag the client sets itself", () => {
    const { stream: _stream, ...rest } = conversation;
    const asked = { ...conversation, stream_options: { include_usage: true } };
    expect(translateRequest(asked, "openai-chat", undefined)).toEqual({
      ...rest,
      stream_options: { include_usage: true },
    });
    const whole = { ...conversation, stream: false };
    expect(translateRequest(whole, "openai-chat", undefined)).toEqual(rest);
  });

  it("a streaming caller who did not ask for usage gets an upstream asked for none", () => {
    const { stream: _stream, ...rest } = conversation;
    expect(translateRequest(conversation, "openai-chat", undefined)).toEqual({
      ...rest,
      stream_options: { include_usage: false },
    });
    const other = { ...conversation, stream_options: { other: 1 } };
    expect(translateRequest(other, "openai-chat", undefined).stream_options).toEqual({
      other: 1,
      include_usage: false,
    });
    const refused = { ...conversation, stream_options: { include_usage: false } };
    expect(translateRequest(refused, "openai-chat", undefined).stream_options).toEqual({
      include_usage: false,
    });
  });
});

describe("parameters with an equivalent are carried, the one without is refused", () => {
  const strictTool = {
    type: "function",
    function: { name: "f", parameters: { type: "object" }, strict: true },
  };
  const schema = { name: "answer", schema: { type: "object" }, strict: true };
  const asking = {
    model: "m",
    messages: [{ role: "user", content: "hi" }],
    tools: [strictTool],
    parallel_tool_calls: false,
    response_format: { type: "json_schema", json_schema: schema },
  };

  it("Responses: response_format is text.format, a tool's strict stays, parallel_tool_calls too", () => {
    const body = translateRequest(asking, "openai-responses", undefined);
    expect(body.text).toEqual({ format: { type: "json_schema", ...schema } });
    expect(body.tools).toEqual([{
      type: "function",
      name: "f",
      description: undefined,
      parameters: { type: "object" },
      strict: true,
    }]);
    expect(body.parallel_tool_calls).toBe(false);
    const json = translateRequest(
      { ...asking, response_format: { type: "json_object" } },
      "openai-responses",
      undefined,
    );
    expect(json.text).toEqual({ format: { type: "json_object" } });
  });

  it("Anthropic: parallel_tool_calls false is tool_choice's disable_parallel_tool_use", () => {
    const { response_format: _, ...rest } = asking;
    expect(translateRequest(rest, "anthropic-messages", undefined).tool_choice).toEqual({
      type: "auto",
      disable_parallel_tool_use: true,
    });
    const forced = translateRequest(
      { ...rest, tool_choice: { type: "function", function: { name: "f" } } },
      "anthropic-messages",
      undefined,
    );
    expect(forced.tool_choice).toEqual({
      type: "tool",
      name: "f",
      disable_parallel_tool_use: true,
    });
  });

  it("Anthropic cannot honour a JSON response_format; plain text it can", () => {
    expect(canHonour(asking, "anthropic-messages")).toBe(false);
    expect(canHonour({ ...asking, response_format: { type: "json_object" } }, "anthropic-messages"))
      .toBe(false);
    expect(canHonour({ ...asking, response_format: { type: "text" } }, "anthropic-messages")).toBe(
      true,
    );
    expect(canHonour(asking, "openai-chat")).toBe(true);
    expect(canHonour(asking, "openai-responses")).toBe(true);
  });
});

describe("Worker bindings", () => {
  it("builds the primary from UPSTREAM_* and fallbacks whose keys come from named secrets", () => {
    const options = relayOptionsFromEnv({
      UPSTREAM_BASE_URL: "https://api.openai.com/v1",
      UPSTREAM_PROTOCOL: "openai-chat",
      UPSTREAM_MODEL: "gpt-4o-mini",
      UPSTREAM_API_KEY: "sk-one",
      FALLBACKS: JSON.stringify([{
        baseURL: "https://api.anthropic.com/v1",
        protocol: "anthropic-messages",
        model: "claude-x",
        apiKeySecret: "ANTHROPIC_KEY",
      }]),
      ANTHROPIC_KEY: "sk-ant-two",
      RELAY_KEYS: "a, b,",
    });
    expect(options).toEqual({
      keys: ["a", "b"],
      upstreams: [
        {
          baseURL: "https://api.openai.com/v1",
          protocol: "openai-chat",
          model: "gpt-4o-mini",
          apiKey: "sk-one",
        },
        {
          baseURL: "https://api.anthropic.com/v1",
          protocol: "anthropic-messages",
          model: "claude-x",
          apiKey: "sk-ant-two",
        },
      ],
    });
  });

  it("empty bindings mean the demo upstream; bad ones are TypeErrors naming the binding", () => {
    expect(relayOptionsFromEnv({ UPSTREAM_BASE_URL: "", FALLBACKS: "" }).upstreams).toBeUndefined();
    expect(relayOptionsFromEnv({ KEEPALIVE_MS: "250" }).keepAliveMs).toBe(250);
    expect(() => relayOptionsFromEnv({ KEEPALIVE_MS: "soon" })).toThrow(/KEEPALIVE_MS/);
    expect(() =>
      relayOptionsFromEnv({ UPSTREAM_BASE_URL: "https://x.test", UPSTREAM_PROTOCOL: "soap" })
    )
      .toThrow(/UPSTREAM_PROTOCOL/);
    expect(() => relayOptionsFromEnv({ UPSTREAM_BASE_URL: "https://x.test", FALLBACKS: "{" }))
      .toThrow(/FALLBACKS is not valid JSON/);
    expect(() =>
      relayOptionsFromEnv({
        UPSTREAM_BASE_URL: "https://x.test",
        FALLBACKS: '[{"baseURL":"https://y.test","apiKeySecret":"MISSING"}]',
      })
    ).toThrow(/FALLBACKS\[0\]\.apiKeySecret must name a secret binding that is set/);
  });
});
