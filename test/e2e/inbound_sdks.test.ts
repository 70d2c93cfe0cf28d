/**
 * The official Anthropic SDK and the openai SDK's Responses helpers against the relay as
 * `npm start` serves it (workerd, the demo model, no configuration), with nothing but a base URL:
 * a 503 on the first attempt gives the whole answer, a tool round trip works, and a drop mid-answer
 * is an error the SDK throws, never a complete answer.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstText, withFunctionOutput, withToolResult } from "../support/sdk_turns.ts";
import { type StartedRelay, startRelay } from "../support/npm_start.ts";

let relay: StartedRelay;

beforeAll(async () => {
  relay = await startRelay();
});

afterAll(async () => {
  await relay?.stop();
});

const REPLY = /^You said: "Hi"\. This is the stopstream demo model/;
const headers = (fault: string) => (fault === "" ? {} : { "x-demo-fault": fault });

describe("npm start: @anthropic-ai/sdk on /v1/messages", () => {
  const client = (fault = "") =>
    new Anthropic({
      baseURL: relay.url,
      apiKey: "unused",
      maxRetries: 0,
      defaultHeaders: headers(fault),
    });
  const params = {
    model: "demo",
    max_tokens: 300,
    messages: [{ role: "user" as const, content: "Hi" }],
  };

  it("messages.stream and messages.create, each after a 503 on the first attempt", async () => {
    const streamed = await client("attempt1=status:503").messages.stream(params).finalMessage();
    const created = await client("attempt1=status:503").messages.create(params);
    for (const message of [streamed, created]) {
      expect(firstText(message)).toMatch(REPLY);
      expect(message.stop_reason).toBe("end_turn");
    }
  });

  it("a tool_use round trip with tool_result", async () => {
    const tools = [{
      name: "get_weather",
      input_schema: { type: "object" as const, properties: { city: { type: "string" } } },
    }];
    const first = await client().messages.stream({ ...params, tools }).finalMessage();
    const call = first.content.find((b) => b.type === "tool_use");
    expect(call?.name).toBe("get_weather");
    const second = await client().messages.create(
      withToolResult(params, tools, first, call!.id, "sunny"),
    );
    expect(firstText(second)).toMatch(/^The tool answered: "sunny"/);
  });

  it("a drop mid-answer is an error", async () => {
    await expect(client("drop-after=5").messages.stream(params).finalMessage()).rejects.toThrow();
  });
});

describe("npm start: the openai SDK on /v1/responses", () => {
  const client = (fault = "") =>
    new OpenAI({
      baseURL: `${relay.url}/v1`,
      apiKey: "unused",
      maxRetries: 0,
      defaultHeaders: headers(fault),
    });

  it("responses.stream and responses.create, each after a 503 on the first attempt", async () => {
    const streamed = await client("attempt1=status:503").responses.stream({
      model: "demo",
      input: "Hi",
    })
      .finalResponse();
    expect(streamed.status).toBe("completed");
    const created = await client("attempt1=status:503").responses.create({
      model: "demo",
      input: "Hi",
    });
    expect(created.output_text).toMatch(REPLY);
    const text = streamed.output.flatMap((item) =>
      item.type === "message"
        ? item.content.map((c) => (c.type === "output_text" ? c.text : ""))
        : []
    ).join("");
    expect(text).toBe(created.output_text);
  });

  it("a function tool round trip, and reasoning from a reasoning model", async () => {
    const tools = [{
      type: "function" as const,
      name: "get_weather",
      strict: false,
      parameters: { type: "object" },
    }];
    const first = await client().responses.create({ model: "demo-reason", input: "Hi", tools });
    expect(first.output.some((item) => item.type === "reasoning")).toBe(true);
    const call = first.output.find((item) => item.type === "function_call");
    expect(call?.name).toBe("get_weather");
    const second = await client().responses.create({
      model: "demo",
      tools,
      input: withFunctionOutput(call!, "sunny"),
    });
    expect(second.output_text).toMatch(/^The tool answered: "sunny"/);
  });

  it("a drop mid-answer is an error", async () => {
    const stream = client("drop-after=5").responses.stream({ model: "demo", input: "Hi" });
    await expect(stream.finalResponse()).rejects.toThrow();
  });
});
