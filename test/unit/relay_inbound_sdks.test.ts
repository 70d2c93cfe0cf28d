/**
 * The official SDKs of Anthropic Messages and the OpenAI Responses API against the relay on a real
 * loopback socket, its upstream the demo model on another (openai-chat, so every answer is
 * translated): whole answers through a 503 on the first attempt, a tool round trip, a drop
 * mid-answer that the SDK sees as an error, and a caller abort that closes the upstream request.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstText, withFunctionOutput, withToolResult } from "../support/sdk_turns.ts";
import { startDemoRelay } from "../support/demo_relay.ts";
import type { NodeServer } from "../support/node_server.ts";

let upstream: NodeServer;
let relay: NodeServer;

beforeAll(async () => {
  ({ upstream, relay } = await startDemoRelay({ wordDelayMs: 5, keepAliveMs: 200 }));
});

afterAll(async () => {
  await relay?.close();
  await upstream?.close();
});

const anthropic = (fault = ""): Anthropic =>
  new Anthropic({
    baseURL: relay.url,
    apiKey: "relay-key",
    maxRetries: 0,
    defaultHeaders: fault === "" ? {} : { "x-demo-fault": fault },
  });

const openai = (fault = ""): OpenAI =>
  new OpenAI({
    baseURL: `${relay.url}/v1`,
    apiKey: "relay-key",
    maxRetries: 0,
    defaultHeaders: fault === "" ? {} : { "x-demo-fault": fault },
  });

const REPLY = /^You said: "Hi"\. This is the stopstream demo model/;

/** The caller aborts once `started` resolves; the upstream request must close within 2 s. */
async function expectUpstreamCut(before: number, abort: () => void): Promise<void> {
  const served = await upstream.request(before + 1);
  const aborted = Date.now();
  abort();
  expect(await served.closed).toBe("aborted");
  expect(Date.now() - aborted).toBeLessThan(2_000);
  expect(upstream.requests().length).toBe(before + 1);
}

describe("@anthropic-ai/sdk against the relay", () => {
  const params = {
    model: "demo",
    max_tokens: 200,
    messages: [{ role: "user" as const, content: "Hi" }],
  };

  it("messages.stream: a 503 on the first attempt, then the whole answer", async () => {
    const before = upstream.requests().length;
    const message = await anthropic("attempt1=status:503").messages.stream(params).finalMessage();
    expect(firstText(message)).toMatch(REPLY);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(upstream.requests().length).toBe(before + 2);
  });

  it("messages.create: a 503 on the first attempt, then one message object", async () => {
    const before = upstream.requests().length;
    const message = await anthropic("attempt1=status:503").messages.create(params);
    expect(firstText(message)).toMatch(REPLY);
    expect(upstream.requests().length).toBe(before + 2);
  });

  it("a tool_use round trip: the call, then the answer to its tool_result", async () => {
    const tools = [{
      name: "get_weather",
      input_schema: {
        type: "object" as const,
        properties: { city: { type: "string" } },
        required: ["city"],
      },
    }];
    const client = anthropic();
    const first = await client.messages.stream({ ...params, tools }).finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    const call = first.content.find((b) => b.type === "tool_use");
    expect(call?.name).toBe("get_weather");
    expect(call?.input).toEqual({ city: expect.any(String) });
    const second = await client.messages.create(
      withToolResult(params, tools, first, call!.id, "sunny"),
    );
    expect(firstText(second)).toMatch(/^The tool answered: "sunny"/);
  });

  it("thinking comes as a thinking block, and sent back it is accepted", async () => {
    const client = anthropic();
    const first = await client.messages.stream({ ...params, model: "demo-reason" }).finalMessage();
    const thinking = first.content.find((b) => b.type === "thinking");
    expect(thinking?.thinking).not.toBe("");
    expect(typeof thinking?.signature).toBe("string");
    const second = await client.messages.create({
      ...params,
      messages: [
        ...params.messages,
        { role: "assistant", content: first.content },
        { role: "user", content: "And again" },
      ],
    });
    expect(firstText(second)).toMatch(/^You said: "And again"/);
  });

  it("a drop mid-answer: the SDK sees an error, not a complete message", async () => {
    const before = upstream.requests().length;
    const stream = anthropic("drop-after=5").messages.stream(params);
    await expect(stream.finalMessage()).rejects.toThrow(/interrupted|connection|upstream/i);
    expect(upstream.requests().length).toBe(before + 1);
  });

  it("a caller abort closes the upstream request within 2 s, never retried", async () => {
    const before = upstream.requests().length;
    const stream = anthropic("word-delay=50").messages.stream(params);
    const ended = stream.finalMessage().catch((error: unknown) => error);
    await new Promise<void>((resolve) => stream.on("text", () => resolve()));
    await expectUpstreamCut(before, () => stream.abort());
    expect(await ended).toBeInstanceOf(Anthropic.APIUserAbortError);
  });
});

describe("openai SDK responses against the relay", () => {
  const params = { model: "demo", input: "Hi" };

  /** The text of a response's message items. */
  function textOf(response: OpenAI.Responses.Response): string {
    return response.output.flatMap((item) =>
      item.type === "message" ? item.content.map((c) => c.type === "output_text" ? c.text : "") : []
    ).join("");
  }

  it("responses.stream: a 503 on the first attempt, then the whole answer", async () => {
    const before = upstream.requests().length;
    const stream = openai("attempt1=status:503").responses.stream(params);
    let deltas = "";
    stream.on("response.output_text.delta", (event) => (deltas += event.delta));
    const response = await stream.finalResponse();
    expect(response.status).toBe("completed");
    expect(textOf(response)).toMatch(REPLY);
    expect(deltas).toBe(textOf(response));
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
    expect(upstream.requests().length).toBe(before + 2);
  });

  it("responses.create: a 503 on the first attempt, then one response object", async () => {
    const before = upstream.requests().length;
    const response = await openai("attempt1=status:503").responses.create(params);
    expect(response.output_text).toMatch(REPLY);
    expect(upstream.requests().length).toBe(before + 2);
  });

  it("a function tool round trip: the call, then the answer to its output", async () => {
    const tools = [{
      type: "function" as const,
      name: "get_weather",
      strict: false,
      parameters: { type: "object", properties: { city: { type: "string" } } },
    }];
    const client = openai();
    const first = await client.responses.stream({ ...params, tools }).finalResponse();
    const call = first.output.find((item) => item.type === "function_call");
    expect(call?.name).toBe("get_weather");
    expect(JSON.parse(call?.arguments ?? "")).toEqual({ city: expect.any(String) });
    const second = await client.responses.create({
      ...params,
      tools,
      input: withFunctionOutput(call!, "sunny"),
    });
    expect(second.output_text).toMatch(/^The tool answered: "sunny"/);
  });

  it("a drop mid-answer: the SDK sees an error, not a completed response", async () => {
    const before = upstream.requests().length;
    const events: string[] = [];
    const stream = openai("drop-after=5").responses.stream(params);
    stream.on("event", (event) => events.push(event.type));
    await expect(stream.finalResponse()).rejects.toThrow();
    expect(events).toContain("response.failed");
    expect(events).not.toContain("response.completed");
    expect(upstream.requests().length).toBe(before + 1);
  });

  it("a caller abort closes the upstream request within 2 s, never retried", async () => {
    const before = upstream.requests().length;
    const stream = openai("word-delay=50").responses.stream(params);
    const ended = stream.finalResponse().catch((error: unknown) => error);
    await new Promise<void>((resolve) => stream.on("response.output_text.delta", () => resolve()));
    await expectUpstreamCut(before, () => stream.abort());
    expect(await ended).toBeInstanceOf(Error);
  });
});

describe("keep-alives on the new routes", () => {
  const post = (path: string, body: unknown) =>
    fetch(`${relay.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": "relay-key",
        // Silent for 3 keep-alive intervals after the answer began.
        "x-demo-fault": "stall-after=2,stall-ms=700",
      },
      body: JSON.stringify(body),
    });

  it("/v1/messages: ping events once the message began", async () => {
    const raw = await (await post("/v1/messages", {
      model: "demo",
      max_tokens: 100,
      stream: true,
      messages: [{ role: "user", content: "Hi" }],
    })).text();
    const start = raw.indexOf("event: message_start");
    expect(start).toBeGreaterThanOrEqual(0);
    expect(raw.slice(start)).toContain('event: ping\ndata: {"type":"ping"}\n\n');
    expect(raw.trimEnd()).toMatch(/event: message_stop\ndata: \{"type":"message_stop"\}$/);
  });

  it("/v1/responses: comments, which no Responses client reads as an event", async () => {
    const raw = await (await post("/v1/responses", { model: "demo", stream: true, input: "Hi" }))
      .text();
    const start = raw.indexOf("event: response.created");
    expect(raw.slice(start)).toMatch(/^: keep-alive$/m);
    expect(raw).toContain("event: response.completed");
  });
});

describe("progress comments on the new routes", () => {
  it.each([
    ["/v1/messages", { model: "demo", max_tokens: 9, stream: true, messages: [] }],
    ["/v1/responses", { model: "demo", stream: true, input: "Hi" }],
  ])("%s narrates a retry, and the answer follows", async (path, body) => {
    const response = await fetch(`${relay.url}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: "Bearer relay-key",
        "x-stopstream-progress": "true",
        "x-demo-fault": "attempt1=status:503",
      },
      body: JSON.stringify(body),
    });
    const raw = await response.text();
    expect(raw).toMatch(/^: retry attempt=2 delay_ms=\d+ reason=503 t=\d+$/m);
    expect(raw).toMatch(/^: open attempt=2 status=200 t=\d+$/m);
    expect(raw).toMatch(/event: (message_stop|response\.completed)/);
  });
});
