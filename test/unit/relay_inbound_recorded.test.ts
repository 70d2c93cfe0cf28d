/**
 * Every recorded provider stream of test/recorded/ through `POST /v1/messages` and
 * `POST /v1/responses` (the chat route: relay_recorded.test.ts), read by each protocol's official
 * SDK: what the SDK assembles holds what stopstream itself makes of the recording (text, the
 * caller's tool calls with their ids and arguments, the stop reason). A recording of the caller's
 * own protocol is passed through: the caller gets its events exactly as the provider sent them.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import type { ChatResult, ProtocolName } from "../../src/index.ts";
import { EXPECTED } from "../recorded/expected.ts";
import { recording } from "../support/recorded.ts";
import { recordedRelay, recordedResult } from "../support/recorded_relay.ts";

const answered = Object.entries(EXPECTED).filter(([, expected]) => expected.error === undefined)
  .map(([name, expected]) => ({ name, protocol: expected.protocol }));

function fetchOf(name: string, protocol: ProtocolName): typeof fetch {
  const relay = recordedRelay(name, protocol);
  return (input, init) => Promise.resolve(relay.request(String(input), init));
}

/** The caller's own calls: the provider ran the others. */
const mine = (result: ChatResult) => result.toolCalls.filter((c) => !c.providerExecuted);

/**
 * `(event, data)` of each SSE event that has data: comments, ids and pings left out. An event
 * without a name is named after its data's `type`, as the relay names it for the SDKs.
 */
function events(text: string): string[] {
  const out: string[] = [];
  for (const block of text.replaceAll("\r\n", "\n").split("\n\n")) {
    let event = "";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      const [field, ...rest] = line.split(":");
      const value = rest.join(":").replace(/^ /, "");
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length === 0) continue;
    const name = event || /^\{"type":"([^"]+)"/.exec(data[0]!)?.[1] || "";
    if (name !== "ping") out.push(`${name}\n${data.join("\n")}`);
  }
  return out;
}

const STOPS: Record<string, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  content_filter: "refusal",
};

/** A promise's value, or its error's message: a recording some SDK cannot read fails alike. */
function settled<T>(promise: Promise<T>): Promise<{ value: T } | { error: string }> {
  return promise.then((value) => ({ value }), (error: Error) => ({ error: error.message }));
}

/** The SDKs' clients, reading through the relay, or the recording straight. */
const anthropicClient = (fetch: typeof globalThis.fetch) =>
  new Anthropic({ baseURL: "http://relay.test", apiKey: "unused", maxRetries: 0, fetch });
const openaiClient = (fetch: typeof globalThis.fetch) =>
  new OpenAI({ baseURL: "http://relay.test/v1", apiKey: "unused", maxRetries: 0, fetch });
/**
 * The recording straight to the SDK, its events named after their data's `type` where the
 * recording left the names out (the providers' APIs send them; the SDKs dispatch on them).
 */
const straight = (name: string): typeof fetch => () => {
  const text = recording(name).replaceAll("\r\n", "\n").split("\n\n").map((block) => {
    const type = /^data: ?\{"type":"([^"]+)"/m.exec(block)?.[1];
    return type === undefined || /^event:/m.test(block) ? block : `event: ${type}\n${block}`;
  }).join("\n\n");
  return Promise.resolve(new Response(text, { headers: { "content-type": "text/event-stream" } }));
};

/** The Messages request every test sends; the recordings of a protocol, for its own route. */
const MESSAGES_REQUEST = {
  model: "any",
  max_tokens: 100,
  messages: [{ role: "user" as const, content: "Hi" }],
};
const own = (protocol: ProtocolName) => answered.filter((c) => c.protocol === protocol);

describe("passed through, each SDK assembles what it assembles from the provider itself", () => {
  test.each(own("anthropic-messages"))("$name", async ({ name, protocol }) => {
    const read = (fetch: typeof globalThis.fetch) =>
      settled(anthropicClient(fetch).messages.stream(MESSAGES_REQUEST).finalMessage());
    expect(await read(fetchOf(name, protocol))).toEqual(await read(straight(name)));
  });
  test.each(own("openai-responses"))("$name", async ({ name, protocol }) => {
    const read = (fetch: typeof globalThis.fetch) =>
      settled(openaiClient(fetch).responses.stream({ model: "any", input: "Hi" }).finalResponse());
    expect(await read(fetchOf(name, protocol))).toEqual(await read(straight(name)));
  });
});

describe("passed through, stream: false is the provider's own blocks and items", () => {
  test.each(own("anthropic-messages"))("$name", async ({ name, protocol }) => {
    const streamed = await settled(
      anthropicClient(straight(name)).messages.stream(MESSAGES_REQUEST).finalMessage(),
    );
    if ("error" in streamed) return; // a recording the SDK cannot read (checked above)
    const whole = await anthropicClient(fetchOf(name, protocol)).messages.create(MESSAGES_REQUEST);
    // The provider's own blocks, in order (the SDK's stream leaves some blocks' inputs empty).
    const shape = (content: Anthropic.ContentBlock[]) =>
      content.map((b) => [b.type, "id" in b ? b.id : null, "text" in b ? b.text : null]);
    expect(shape(whole.content)).toEqual(shape(streamed.value.content));
  });
  test.each(own("openai-responses"))("$name", async ({ name, protocol }) => {
    const streamed = await settled(
      openaiClient(straight(name)).responses.stream({ model: "any", input: "Hi" }).finalResponse(),
    );
    if ("error" in streamed) return;
    const whole = await openaiClient(fetchOf(name, protocol)).responses.create({
      model: "any",
      input: "Hi",
    });
    // The provider's own items (encrypted reasoning, and OpenRouter's item ids, differ between a
    // recording's item events and its `response.completed`, which the SDK's stream keeps).
    const shape = (output: OpenAI.Responses.ResponseOutputItem[]) =>
      output.map((item) => [
        item.type,
        item.type === "message" ? item.content.map((c) => "text" in c ? c.text : c.type) : null,
      ]);
    expect(shape(whole.output)).toEqual(shape(streamed.value.output));
  });
});

describe("POST /v1/messages: the Anthropic SDK's message holds the recording's answer", () => {
  const translated = answered.filter((c) => c.protocol !== "anthropic-messages");
  test.each(translated)("$name", async ({ name, protocol }) => {
    const want = await recordedResult(name, protocol);
    const client = anthropicClient(fetchOf(name, protocol));
    const message = await client.messages.stream(MESSAGES_REQUEST).finalMessage();
    const text = message.content.map((b) => b.type === "text" ? b.text : "").join("");
    expect(text).toBe(want.content + (want.refusal ?? ""));
    const calls = message.content.filter((b) => b.type === "tool_use");
    expect(calls.map((c) => [c.id, c.name, c.input])).toEqual(
      mine(want).map((c) => [
        c.id,
        c.name || c.type,
        c.type === "custom" ? { input: c.arguments } : JSON.parse(c.arguments || "{}"),
      ]),
    );
    expect(message.stop_reason).toBe(STOPS[want.finishReason]);
  });
});

describe("POST /v1/responses: the openai SDK's response holds the recording's answer", () => {
  const translated = answered.filter((c) => c.protocol !== "openai-responses");
  test.each(translated)("$name", async ({ name, protocol }) => {
    const want = await recordedResult(name, protocol);
    const client = openaiClient(fetchOf(name, protocol));
    const response = await client.responses.stream({ model: "any", input: "Hi" }).finalResponse();
    const text = response.output.flatMap((item) =>
      item.type === "message" ? item.content.map((c) => c.type === "output_text" ? c.text : "") : []
    ).join("");
    expect(text).toBe(want.content + (want.refusal ?? ""));
    const calls = response.output.filter((item) => item.type === "function_call");
    expect(calls.map((c) => [c.call_id, c.name, c.arguments])).toEqual(
      mine(want).map((c) => [c.id, c.name || c.type, c.arguments]),
    );
  });
});

describe("the caller's own protocol is passed through, event for event", () => {
  const same = answered.filter((c) => c.protocol !== "openai-chat");
  test.each(same)("$name", async ({ name, protocol }) => {
    const route = protocol === "anthropic-messages" ? "/v1/messages" : "/v1/responses";
    const body = { model: "any", max_tokens: 100, messages: [], input: "Hi", stream: true };
    const response = await recordedRelay(name, protocol).request(route, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const got = events(await response.text());
    const sent = events(recording(name));
    // Up to the event that ends the answer: the client reads no further.
    expect(got).toEqual(sent.slice(0, got.length));
    expect(got.length).toBeGreaterThan(sent.length / 2);
  });
});
