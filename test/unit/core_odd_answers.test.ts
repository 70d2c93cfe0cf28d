/**
 * Answers a hostile or careless server sends that the client must still tell for what they
 * are, found in a review: an error object (or any text) labelled as an event stream, events of
 * a shape the decoder cannot read, a tool call's name that is not a string, and usage where
 * Groq first sent it. (An error body cut while it is read: core_loopback, a real socket.)
 */
import { describe, expect, test } from "vitest";
import { streamChat } from "../../src/client/stream_chat.ts";
import { sseReply, textReply, useMockUpstream } from "../support/msw.ts";
import { BODY, options, rejection } from "../support/chat.ts";

const upstream = useMockUpstream();

describe("a 200 labelled text/event-stream that holds no event", () => {
  test("an error object without `data:` is the provider's error, sent once", async () => {
    upstream.reply(
      textReply(
        200,
        JSON.stringify({
          error: { message: "Invalid model gpt-nope", type: "invalid_request_error" },
        }),
        "text/event-stream",
      ),
    );
    const error = await rejection(streamChat(options()).result);
    expect({ requests: upstream.count, message: (error as Error).message }).toEqual({
      requests: 1,
      message: expect.stringContaining("Invalid model gpt-nope"),
    });
  });

  test("an HTML page is a StreamProtocolError quoting it, not a retried lost connection", async () => {
    upstream.reply(textReply(200, "<html><body>Bad gateway</body></html>", "text/event-stream"));
    const error = await rejection(streamChat(options()).result);
    expect({ name: (error as Error).name, requests: upstream.count }).toEqual({
      name: "StreamProtocolError",
      requests: 1,
    });
    expect((error as Error).message).toContain("<html><body>Bad gateway");
  });
});

describe("events of a shape the decoder cannot read are a StreamProtocolError", () => {
  test.each([
    ["choices: [null]", '{"choices":[null]}'],
    ["tool_calls an object", '{"choices":[{"index":0,"delta":{"tool_calls":{"a":1}}}]}'],
    ["tool_calls: [null]", '{"choices":[{"index":0,"delta":{"tool_calls":[null]}}]}'],
  ])("%s", async (_name, data) => {
    upstream.reply(sseReply(`data: ${data}\n\ndata: [DONE]\n\n`));
    const error = await rejection(streamChat(options()).result);
    expect({ name: (error as Error).name, cause: ((error as Error).cause as Error)?.name })
      .toEqual({ name: "StreamProtocolError", cause: "TypeError" });
    expect(upstream.count).toBe(1);
  });
});

test("a tool call's name that is not a string is empty, never an object", async () => {
  upstream.reply(sseReply(
    'data: {"id":"c1","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":{"injected":true},"arguments":"{}"}}]}}]}\n\n' +
      'data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n',
  ));
  const result = await streamChat(options()).result;
  expect(result.toolCalls[0]).toMatchObject({ id: "call_a", name: "", arguments: "{}" });
});

// vercel/ai, packages/groq/src/groq-chat-language-model.test.ts ("should stream tool call that
// is sent in one chunk", Apache-2.0): Groq's usage under `x_groq` only, on the last chunk.
test("Groq usage sent only under x_groq.usage is the result's usage", async () => {
  upstream.reply(sseReply(
    `data: {"id":"chatcmpl-e7f8e220-656c-4455-a132-dacfc1370798","object":"chat.completion.chunk","created":1711357598,"model":"gemma2-9b-it","system_fingerprint":"fp_3bc1b5746c","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_O17Uplv4lJvD6DVdIvFFeRMw","type":"function","function":{"name":"test-tool","arguments":"{\\"value\\":\\"Sparkle Day\\"}"}}]},"finish_reason":null}]}\n\n` +
      `data: {"id":"chatcmpl-e7f8e220-656c-4455-a132-dacfc1370798","object":"chat.completion.chunk","created":1729171479,"model":"gemma2-9b-it","system_fingerprint":"fp_10c08bf97d","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"x_groq":{"id":"req_01jadadp0femyae9kav1gpkhe8","usage":{"queue_time":0.061348671,"prompt_tokens":18,"prompt_time":0.000211569,"completion_tokens":439,"completion_time":0.798181818,"total_tokens":457,"total_time":0.798393387}}}\n\n` +
      "data: [DONE]\n\n",
  ));
  const result = await streamChat({ ...options(), body: BODY }).result;
  expect(result.usage).toMatchObject({ inputTokens: 18, outputTokens: 439, totalTokens: 457 });
});

test("an unknown field and then the end is a cut connection, retried as one (no body begins so)", async () => {
  upstream.reply(
    textReply(200, "x-trace: 1\n", "text/event-stream"),
    sseReply('data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\n'),
  );
  const result = await streamChat(options()).result;
  expect({ content: result.content, requests: upstream.count }).toEqual({
    content: "ok",
    requests: 2,
  });
});
