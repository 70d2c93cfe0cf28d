/**
 * A hostile upstream and a hostile caller against the relay, found in a review: a non-streaming
 * answer past `maxStreamBytes` from an upstream that will not stream, caller JSON the
 * translation to Anthropic could not take, and an upstream error `type` passed on as the
 * caller's `code` with a key in it, or 100,000 characters long.
 */
import { describe, expect, test } from "vitest";
import { createRelay } from "../../src/relay/app.ts";

type App = ReturnType<typeof createRelay>;
const post = (app: App, body: unknown) =>
  app.request("/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const hi = [{ role: "user", content: "hi" }];

test("an upstream that will not stream, then answers stream: false past maxStreamBytes: 502 answer_too_large", async () => {
  const big = "x".repeat(200_000);
  let requests = 0;
  const app = createRelay({
    upstreams: [{ baseURL: "https://refuses.test/v1" }],
    maxStreamBytes: 16 * 1024,
    maxRetries: 0,
    fetch: (_input, init) => {
      requests++;
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
      if (body.stream === true) {
        return Promise.resolve(Response.json(
          { error: { message: "Streaming is not supported for this model", param: "stream" } },
          { status: 400 },
        ));
      }
      return Promise.resolve(Response.json({
        id: "c1",
        object: "chat.completion",
        choices: [{
          index: 0,
          message: { role: "assistant", content: big },
          finish_reason: "stop",
        }],
      }));
    },
  });
  const response = await post(app, { messages: hi, stream: false });
  const text = await response.text();
  expect({ status: response.status, requests }).toEqual({ status: 502, requests: 2 });
  expect(JSON.parse(text).error.code).toBe("answer_too_large");
  expect(text.length).toBeLessThan(1000);
});

describe("caller JSON the translation to Anthropic must take (a 4xx from upstream, never a 500)", () => {
  const anthropic = () => {
    const seen: unknown[] = [];
    const app = createRelay({
      upstreams: [{
        baseURL: "https://anthropic.test/v1",
        protocol: "anthropic-messages",
        model: "claude",
      }],
      maxRetries: 0,
      fetch: (_input, init) => {
        seen.push(JSON.parse(String(init?.body)));
        return Promise.resolve(Response.json({ error: { message: "nope" } }, { status: 400 }));
      },
    });
    return { app, seen };
  };

  test("ids, names and URLs that String() cannot convert ({toString: 1}) are sent empty", async () => {
    const { app, seen } = anthropic();
    const odd = { toString: 1 };
    const response = await post(app, {
      stream: true,
      messages: [
        { role: "user", content: [{ type: "image_url", image_url: { url: odd } }] },
        { role: "assistant", tool_calls: [{ id: odd, function: { name: odd, arguments: "{}" } }] },
        { role: "tool", tool_call_id: odd, content: "x" },
      ],
    });
    expect(response.status).toBe(400);
    const messages = (seen[0] as { messages: Array<{ content: Array<Record<string, unknown>> }> })
      .messages;
    expect(messages[1]!.content[0]).toMatchObject({ type: "tool_use", id: "", name: "" });
    expect(messages[2]!.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "" });
  });

  test("a second user turn of 300,000 parts (900 KB, under maxBodyBytes) is merged into the first", async () => {
    const { app, seen } = anthropic();
    const parts = "[" + Array(300_000).fill("{}").join(",") + "]";
    const body =
      `{"stream":true,"messages":[{"role":"user","content":"hi"},{"role":"user","content":${parts}}]}`;
    const response = await post(app, body);
    expect(response.status).toBe(400);
    expect((seen[0] as { messages: Array<{ content: unknown[] }> }).messages[0]!.content)
      .toHaveLength(300_001);
  });
});

describe("an upstream's error type, passed on as the caller's code", () => {
  const KEY = "sk-live-0123456789abcdefWXYZ";
  const run = async (type: string) => {
    const app = createRelay({
      upstreams: [{ baseURL: "https://up.test/v1", apiKey: KEY }],
      maxRetries: 0,
      fetch: () =>
        Promise.resolve(
          new Response(
            `data: ${JSON.stringify({ error: { message: "key sk-l****WXYZ refused", type } })}\n\n`,
            { headers: { "content-type": "text/event-stream" } },
          ),
        ),
    });
    const text = await (await post(app, { messages: hi, stream: true })).text();
    const last = text.trim().split("\n").at(-1)!;
    return JSON.parse(last.slice("data: ".length)).error as { message: string; code: string };
  };

  test("has a key echoed masked redacted, as the message has", async () => {
    const error = await run("invalid key sk-l****WXYZ");
    expect(error.message).not.toContain("WXYZ");
    expect(error.code).toBe("invalid key [redacted]");
  });

  test("is cut, to 100 characters", async () => {
    const error = await run("internal.corp.example:8443 " + "x".repeat(100_000));
    expect(error.code).toHaveLength(100);
  });

  test("an identifier goes through as it is", async () => {
    expect((await run("overloaded_error")).code).toBe("overloaded_error");
  });
});

test("an upstream event of a shape the decoder cannot read is a 502 upstream_protocol, not a 500", async () => {
  const app = createRelay({
    upstreams: [{ baseURL: "https://up.test/v1" }],
    maxRetries: 0,
    fetch: () =>
      Promise.resolve(
        new Response('data: {"choices":[null]}\n\ndata: [DONE]\n\n', {
          headers: { "content-type": "text/event-stream" },
        }),
      ),
  });
  const response = await post(app, { messages: hi, stream: false });
  expect({ status: response.status, code: (await response.json()).error.code }).toEqual({
    status: 502,
    code: "upstream_protocol",
  });
});
