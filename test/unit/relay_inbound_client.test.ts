/**
 * The stopstream client speaking Anthropic Messages and the Responses API gets the same answer
 * from the relay (`/v1/messages`, `/v1/responses`, the demo its chat upstream) as from the demo
 * model speaking that protocol itself (`/demo/v1/…`): text, reasoning, tool calls, finish, usage.
 */
import { describe, expect, test } from "vitest";
import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import { type ProtocolName, streamChat } from "../../src/index.ts";

const app = createDemoRelay({ retry: { initialDelayMs: 1, maxDelayMs: 2 } }, { wordDelayMs: 0 });

/** The app's fetch; straight to the demo, each request numbered, as the relay numbers its own. */
function appFetch(): typeof fetch {
  let attempt = 0;
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (String(input).includes("/demo/")) headers.set("x-demo-attempt", String(++attempt));
    return Promise.resolve(app.request(String(input), { ...init, headers }));
  };
}

/** The request in `protocol`'s own shape. */
function bodyFor(protocol: ProtocolName, model: string, tools: boolean): Record<string, unknown> {
  if (protocol === "anthropic-messages") {
    return {
      model,
      max_tokens: 300,
      messages: [{ role: "user", content: "Hi there" }],
      ...(tools ? { tools: [{ name: "get_weather", input_schema: { type: "object" } }] } : {}),
    };
  }
  return {
    model,
    input: "Hi there",
    ...(tools ? { tools: [{ type: "function", name: "get_weather", parameters: {} }] } : {}),
  };
}

async function call(
  base: string,
  protocol: ProtocolName,
  body: Record<string, unknown>,
  fault: string,
): Promise<Record<string, unknown>> {
  const result = await streamChat({
    baseURL: `http://relay.test${base}`,
    protocol,
    body,
    fetch: appFetch(),
    headers: { "x-demo-fault": fault },
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
  }).result;
  const { content, reasoning, finishReason, usage } = result;
  const toolCalls = result.toolCalls.map(({ id, name, arguments: args }) => ({ id, name, args }));
  return { content, reasoning, finishReason, toolCalls, usage: usage && { ...usage, raw: null } };
}

describe.each(["anthropic-messages", "openai-responses"] as const)("%s", (protocol) => {
  test.each([
    ["a text answer", "demo", false, ""],
    ["reasoning, then text", "demo-reasoner", false, ""],
    ["tool calls", "demo", true, ""],
    ["a 503 on the first attempt", "demo", false, "attempt1=status:503"],
  ])("%s: the relay's answer is the demo's own", async (_name, model, tools, fault) => {
    const body = bodyFor(protocol, model, tools);
    const direct = await call("/demo/v1", protocol, body, fault);
    const relayed = await call("/v1", protocol, body, fault);
    expect(relayed).toEqual(direct);
    expect(direct.content === "" && (direct.toolCalls as unknown[]).length === 0).toBe(false);
    if (tools) expect(direct.finishReason).toBe("tool_calls");
    if (model.includes("reason")) expect(direct.reasoning).not.toBe("");
  });
});
