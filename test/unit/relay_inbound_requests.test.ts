/**
 * `POST /v1/messages` and `POST /v1/responses`: bad input is a 4xx in the route's own error
 * shape (never a 500), callers authenticate with `x-api-key` or a bearer key, what needs a
 * provider's own state or tools is refused by name unless an upstream of that protocol takes
 * it, a beta header goes to its provider only, and `count_tokens` needs an Anthropic upstream.
 */
import { describe, expect, test } from "vitest";
import type { ProtocolName } from "../../src/index.ts";
import { createRelay } from "../../src/relay/app.ts";
import { recording } from "../support/recorded.ts";

const ANSWERS: Record<ProtocolName, string> = {
  "openai-chat": recording("chat/openai_text.sse"),
  "anthropic-messages": recording("anthropic/text.sse"),
  "openai-responses": recording("responses/reasoning_answer.sse"),
};

/** A relay over upstreams of `protocols`, recording what each was sent. */
function relay(...protocols: ProtocolName[]) {
  const sent: Array<{ url: string; headers: Headers; body: Record<string, unknown> }> = [];
  const app = createRelay({
    upstreams: protocols.map((protocol, i) => ({
      baseURL: `https://up${i}.test/v1`,
      apiKey: `sk-up-${i}`,
      protocol,
    })),
    keys: ["relay-key"],
    maxRetries: 0,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const body = await request.json() as Record<string, unknown>;
      sent.push({ url: request.url, headers: request.headers, body });
      if (request.url.endsWith("/count_tokens")) return Response.json({ input_tokens: 7 });
      const protocol = protocols[Number(/up(\d)/.exec(request.url)?.[1])]!;
      return new Response(ANSWERS[protocol], { headers: { "content-type": "text/event-stream" } });
    },
  });
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    app.request(path, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "relay-key", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  return { post, sent, app };
}

const MESSAGES = { model: "m", max_tokens: 50, messages: [{ role: "user", content: "Hi" }] };
const RESPONSES = { model: "m", input: "Hi" };
const DEEP = `${"[".repeat(5_000)}${"]".repeat(5_000)}`;
const BIG = JSON.stringify({ ...MESSAGES, pad: "x".repeat(10 * 1024 * 1024) });

async function anthropicError(response: Response, status: number): Promise<string> {
  expect(response.status).toBe(status);
  const body = await response.json() as { type: string; error: { type: string; message: string } };
  expect(body.type).toBe("error");
  expect(typeof body.error.type).toBe("string");
  return body.error.message;
}

async function openaiError(response: Response, status: number): Promise<string> {
  expect(response.status).toBe(status);
  const body = await response.json() as { error: { type: string; message: string } };
  expect(typeof body.error.type).toBe("string");
  return body.error.message;
}

describe("POST /v1/messages: bad input is a 4xx in Anthropic's error shape", () => {
  const { post, sent } = relay("openai-chat");
  test.each([
    ["missing max_tokens", { ...MESSAGES, max_tokens: undefined }, /max_tokens/],
    ["max_tokens a string", { ...MESSAGES, max_tokens: "50" }, /max_tokens/],
    ["messages not an array", { ...MESSAGES, messages: "Hi" }, /messages/],
    ["a role that is not user or assistant", {
      ...MESSAGES,
      messages: [{ role: "system", content: "x" }],
    }, /role/],
    ["stream a string", { ...MESSAGES, stream: "true" }, /stream/],
    [
      "a block without a type",
      { ...MESSAGES, messages: [{ role: "user", content: [{}] }] },
      /type/,
    ],
    ["a block type only Anthropic takes", {
      ...MESSAGES,
      messages: [{ role: "user", content: [{ type: "document", source: {} }] }],
    }, /document/],
    [
      "a server tool",
      { ...MESSAGES, tools: [{ type: "web_search_20250305", name: "w" }] },
      /web_search/,
    ],
    ["not JSON", "{", /JSON/],
    ["JSON nested 5,000 deep", DEEP, /deep/],
  ])("%s", async (_name, body, message) => {
    expect(await anthropicError(await post("/v1/messages", body), 400)).toMatch(message);
    expect(sent.length).toBe(0);
  });

  test("a 10 MB body is a 413", async () => {
    expect(await anthropicError(await post("/v1/messages", BIG), 413)).toMatch(/larger/);
  });

  test("GET is a 405 in Anthropic's shape", async () => {
    const { app } = relay("openai-chat");
    const response = await app.request("/v1/messages", { headers: { "x-api-key": "relay-key" } });
    expect(await anthropicError(response, 405)).toMatch(/use POST/);
  });

  test("no key, or a wrong one, is a 401 in Anthropic's shape; a bearer key passes too", async () => {
    expect(await anthropicError(await post("/v1/messages", MESSAGES, { "x-api-key": "no" }), 401))
      .toMatch(/x-api-key/);
    const bearer = await post("/v1/messages", MESSAGES, {
      "x-api-key": "",
      authorization: "Bearer relay-key",
    });
    expect(bearer.status).toBe(200);
  });
});

describe("POST /v1/responses: bad input is a 4xx in OpenAI's error shape", () => {
  const { post, sent } = relay("anthropic-messages");
  test.each([
    ["input a number", { ...RESPONSES, input: 5 }, /input/],
    ["model missing", { input: "Hi" }, /model/],
    ["stream a string", { ...RESPONSES, stream: "yes" }, /stream/],
    ["max_output_tokens a string", { ...RESPONSES, max_output_tokens: "9" }, /max_output_tokens/],
    [
      "previous_response_id",
      { ...RESPONSES, previous_response_id: "resp_1" },
      /previous_response_id/,
    ],
    ["background: true", { ...RESPONSES, background: true }, /background/],
    ["a hosted tool", { ...RESPONSES, tools: [{ type: "web_search" }] }, /web_search/],
    ["an item type only the Responses API takes", {
      ...RESPONSES,
      input: [{ type: "item_reference", id: "x" }],
    }, /item_reference/],
    ["JSON nested 5,000 deep", DEEP, /deep/],
  ])("%s", async (_name, body, message) => {
    expect(await openaiError(await post("/v1/responses", body), 400)).toMatch(message);
    expect(sent.length).toBe(0);
  });

  test("a 10 MB body is a 413", async () => {
    expect(await openaiError(await post("/v1/responses", BIG), 413)).toMatch(/larger/);
  });
});

describe("what needs the caller's own protocol goes to an upstream that speaks it", () => {
  test("previous_response_id and hosted tools pass through to a Responses upstream", async () => {
    const { post, sent } = relay("openai-chat", "openai-responses");
    const body = { ...RESPONSES, previous_response_id: "resp_1", tools: [{ type: "web_search" }] };
    const response = await post("/v1/responses", body);
    expect(response.status).toBe(200);
    await response.text();
    expect(sent.map((s) => s.url)).toEqual(["https://up1.test/v1/responses"]);
    expect(sent[0]!.body).toMatchObject({ previous_response_id: "resp_1", input: "Hi" });
  });

  test("anthropic-beta goes to an Anthropic upstream only", async () => {
    for (const protocol of ["anthropic-messages", "openai-chat"] as const) {
      const { post, sent } = relay(protocol);
      const response = await post("/v1/messages", MESSAGES, { "anthropic-beta": "b-1" });
      expect(response.status).toBe(200);
      await response.text();
      expect(sent.length).toBe(1);
      const beta = sent[0]!.headers.get("anthropic-beta");
      expect(beta).toBe(protocol === "anthropic-messages" ? "b-1" : null);
      // The caller's key never goes upstream: the upstream's own does.
      expect(sent[0]!.headers.get("x-api-key")).not.toBe("relay-key");
    }
  });
});

describe("POST /v1/messages/count_tokens", () => {
  test("goes to the Anthropic upstream with its key", async () => {
    const { post, sent } = relay("openai-chat", "anthropic-messages");
    const response = await post("/v1/messages/count_tokens", MESSAGES);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ input_tokens: 7 });
    expect(sent.map((s) => s.url)).toEqual(["https://up1.test/v1/messages/count_tokens"]);
    expect(sent[0]!.headers.get("x-api-key")).toBe("sk-up-1");
  });

  test("is a 501 in Anthropic's shape without an Anthropic upstream", async () => {
    const { post, sent } = relay("openai-chat", "openai-responses");
    const message = await anthropicError(await post("/v1/messages/count_tokens", MESSAGES), 501);
    expect(message).toMatch(/Anthropic Messages upstream/);
    expect(sent.length).toBe(0);
  });
});
