import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, test } from "vitest";
import { createDemoUpstream } from "../../src/apps/demo/upstream.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import {
  chatRequest,
  counted,
  deferred,
  joinDeltas,
  jsonChunks,
  parseRaw,
  readBody,
} from "./demo_helpers.ts";

async function stream(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const demo = counted();
  const response = await demo.handler(chatRequest({ stream: true, ...body }, headers));
  const { text, error } = await readBody(response.body!);
  const events = parseRaw(text);
  return { response, events, chunks: jsonChunks(events), error, seen: demo.seen };
}

describe("demo upstream replies", () => {
  test("a healthy stream echoes the user in 25-40 words, then finish, usage and [DONE]", async () => {
    const { response, events, chunks, error, seen } = await stream({
      stream_options: { include_usage: true },
    });
    expect(seen).toEqual([{ attempt: 1, faults: "" }]);
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(events.at(-1)).toEqual({ kind: "data", data: "[DONE]" });
    expect(chunks[0].object).toBe("chat.completion.chunk");
    expect(chunks[0].choices[0].delta.role).toBe("assistant");
    const text = joinDeltas(chunks, "content");
    expect(text).toMatch(/^You said: "Tell me about streams"\. This is the stopstream demo/);
    const words = text.split(" ").length;
    expect(words).toBeGreaterThanOrEqual(25);
    expect(words).toBeLessThanOrEqual(40);
    const finish = chunks.at(-2);
    expect(finish.choices[0]).toMatchObject({ delta: {}, finish_reason: "stop" });
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBe(words);
    expect(usage.usage.total_tokens).toBe(usage.usage.prompt_tokens + words);
  });

  test("the same input gives the same reply and a different input a different one", async () => {
    const a = await stream({});
    const b = await stream({});
    const c = await stream({
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
    });
    expect(joinDeltas(a.chunks, "content")).toBe(joinDeltas(b.chunks, "content"));
    expect(a.chunks[0].id).toBe(b.chunks[0].id);
    expect(joinDeltas(c.chunks, "content")).toMatch(/^You said: "hi"\./);
  });

  test("without include_usage there is no usage chunk", async () => {
    const { chunks } = await stream({});
    expect(chunks.every((chunk) => chunk.usage === undefined && chunk.choices.length === 1))
      .toBe(true);
  });

  test("with one tool it streams one call whose arguments arrive in fragments", async () => {
    const tools = [{
      type: "function",
      function: {
        name: "get_weather",
        parameters: {
          type: "object",
          properties: { city: { type: "string" }, days: { type: "integer" } },
        },
      },
    }];
    const { chunks } = await stream({ tools });
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({
      index: 0,
      type: "function",
      function: { name: "get_weather" },
    });
    expect(deltas.length).toBeGreaterThan(3);
    const args = deltas.map((delta) => delta.function.arguments).join("");
    expect(JSON.parse(args)).toEqual({ city: "Tell me about streams", days: 42 });
    expect(chunks.at(-1).choices[0].finish_reason).toBe("tool_calls");
    expect(joinDeltas(chunks, "content")).toBe("");
  });

  test("with two tools it streams parallel calls with indexes 0 and 1", async () => {
    const tool = (name: string) => ({ type: "function", function: { name } });
    const { chunks } = await stream({ tools: [tool("a"), tool("b"), tool("c")] });
    const deltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    const starts = deltas.filter((delta) => delta.id !== undefined);
    expect(starts.map((delta) => [delta.index, delta.function.name])).toEqual([[0, "a"], [1, "b"]]);
    expect(new Set(starts.map((delta) => delta.id)).size).toBe(2);
  });

  test("after a tool result, or with tool_choice none, it answers with text", async () => {
    const tools = [{ type: "function", function: { name: "a" } }];
    const none = await stream({ tools, tool_choice: "none" });
    expect(joinDeltas(none.chunks, "content")).toMatch(/^You said:/);
    const messages = [
      { role: "user", content: "weather?" },
      { role: "tool", tool_call_id: "x", content: "sunny" },
    ];
    const after = await stream({ tools, messages });
    expect(joinDeltas(after.chunks, "content")).toMatch(/^The tool answered: "sunny"\./);
  });

  test("a reasoning model sends 8 reasoning words before the answer; reasoning=N overrides", async () => {
    const { chunks } = await stream({ model: "demo-reasoner" });
    const reasoning = chunks.filter((chunk) => chunk.choices[0]?.delta.reasoning_content);
    expect(reasoning).toHaveLength(8);
    expect(chunks.indexOf(reasoning[7])).toBe(7);
    expect(chunks[0].choices[0].delta.role).toBe("assistant");
    expect(joinDeltas(chunks, "content")).toMatch(/^You said:/);
    const three = await stream({}, { "x-demo-fault": "reasoning=3" });
    expect(three.chunks.filter((chunk) => chunk.choices[0]?.delta.reasoning_content)).toHaveLength(
      3,
    );
  });

  test("stream:false answers, in each protocol, are read whole by the official SDKs", async () => {
    const demo = counted();
    const fetch = (input: string | URL | Request, init?: RequestInit) =>
      demo.handler(new Request(input, init));
    const baseURL = "http://demo.test/v1";
    const openai = new OpenAI({ baseURL, apiKey: "unused", fetch, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: "http://demo.test", apiKey: "unused", fetch });
    const content = "Not streaming";
    const chat = await openai.chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content }],
    });
    const message = await anthropic.messages.create({
      model: "demo",
      max_tokens: 64,
      messages: [{ role: "user", content }],
    });
    const response = await openai.responses.create({ model: "demo", input: content });
    const said = /^You said: "Not streaming"\./;
    expect(chat.choices[0]?.message.content).toMatch(said);
    expect(chat.choices[0]?.finish_reason).toBe("stop");
    expect(chat.usage?.total_tokens).toBeGreaterThan(0);
    const block = message.content[0];
    expect(block?.type === "text" ? block.text : undefined).toMatch(said);
    expect(message.stop_reason).toBe("end_turn");
    expect(response.output_text).toMatch(said);
    expect(response.status).toBe("completed");
  });

  test("stream:false answers one chat.completion with the same text", async () => {
    const demo = counted();
    const response = await demo.handler(chatRequest({ stream: false }));
    const json = await response.json();
    const streamed = await stream({});
    expect(json.object).toBe("chat.completion");
    expect(json.choices[0].message).toMatchObject({ role: "assistant" });
    expect(json.choices[0].message.content).toBe(joinDeltas(streamed.chunks, "content"));
    expect(json.choices[0].finish_reason).toBe("stop");
    expect(json.usage.total_tokens).toBeGreaterThan(0);
    expect(demo.seen).toHaveLength(1);
  });

  test("bad JSON, missing messages, bad tools, wrong method and path are rejected", async () => {
    const demo = counted();
    const post = (body: string, url = "http://d/v1/chat/completions") =>
      demo.handler(new Request(url, { method: "POST", body }));
    const badJson = await post("{nope");
    expect(badJson.status).toBe(400);
    expect((await badJson.json()).error).toMatchObject({ type: "invalid_request_error" });
    expect((await post("{}")).status).toBe(400);
    expect((await post("[]")).status).toBe(400);
    const badTool = await post(JSON.stringify({ messages: [], tools: [{ function: {} }] }));
    expect((await badTool.json()).error.message).toMatch(/tools\[0\]\.function\.name/);
    const get = await demo.handler(new Request("http://d/v1/chat/completions"));
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect((await post("{}", "http://d/v1/models")).status).toBe(404);
    expect(demo.seen).toHaveLength(6);
  });
});

describe("demo upstream on a real socket", () => {
  let server: NodeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  test("a healthy stream arrives through fetch and the server finishes the response", async () => {
    const demo = counted(1);
    server = await startNodeServer(demo.handler);
    const response = await fetch(
      chatRequest({ stream: true }, {}, `${server.url}/v1/chat/completions`),
    );
    const { text, error } = await readBody(response.body!);
    expect(error).toBeUndefined();
    expect(parseRaw(text).at(-1)).toEqual({ kind: "data", data: "[DONE]" });
    expect(await (await server.request(1)).closed).toBe("finished");
    expect(demo.seen).toHaveLength(1);
    expect(demo.cancels).toEqual([]);
  });

  test("drop-after=5 cuts the connection after five words with no terminal event", async () => {
    const demo = counted(1);
    server = await startNodeServer(demo.handler);
    const url = `${server.url}/v1/chat/completions`;
    const response = await fetch(
      chatRequest({ stream: true }, { "x-demo-fault": "drop-after=5" }, url),
    );
    expect(response.status).toBe(200);
    const { text, error } = await readBody(response.body!);
    expect(error).toBeInstanceOf(TypeError);
    const chunks = jsonChunks(parseRaw(text));
    expect(chunks).toHaveLength(5);
    expect(chunks.every((chunk) => chunk.choices[0].finish_reason === null)).toBe(true);
    expect(text).not.toContain("[DONE]");
    expect(await (await server.request(1)).closed).toBe("dropped");
    expect(demo.seen).toEqual([{ attempt: 1, faults: "drop-after=5" }]);
  });

  test("a client abort mid-stream closes the socket and the demo sees the cancel", async () => {
    const cancelled = deferred<{ attempt: number; wordsSent: number }>();
    let requests = 0;
    const handler = createDemoUpstream({
      wordDelayMs: 2,
      onRequest: () => requests++,
      onCancel: cancelled.resolve,
    });
    server = await startNodeServer(handler);
    const controller = new AbortController();
    const url = `${server.url}/v1/chat/completions`;
    const request = chatRequest({ stream: true }, { "x-demo-fault": "words=500" }, url);
    const response = await fetch(request, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    expect(await (await server.request(1)).closed).toBe("aborted");
    const info = await cancelled.promise;
    expect(info.attempt).toBe(1);
    expect(info.wordsSent).toBeGreaterThanOrEqual(1);
    expect(info.wordsSent).toBeLessThan(500);
    expect(requests).toBe(1);
  });
});
