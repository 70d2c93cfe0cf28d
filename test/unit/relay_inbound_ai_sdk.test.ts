/**
 * The AI SDK's `@ai-sdk/anthropic` and `@ai-sdk/openai` (Responses) providers' `streamText` against
 * the relay on a loopback socket, its upstream the demo model on another: a 503 on the first
 * attempt (the answer arrives whole), a drop mid-answer (an error, not a complete answer) and a
 * caller that stops reading and aborts (the upstream request closes within 2 s).
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { type LanguageModel, streamText } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoRelay } from "../support/demo_relay.ts";
import type { NodeServer } from "../support/node_server.ts";

let upstream: NodeServer;
let relay: NodeServer;

beforeAll(async () => {
  ({ upstream, relay } = await startDemoRelay({ wordDelayMs: 2 }));
});

afterAll(async () => {
  await relay?.close();
  await upstream?.close();
});

const MODELS: Array<[string, (fault: string) => LanguageModel]> = [
  ["@ai-sdk/anthropic", (fault) =>
    createAnthropic({
      baseURL: `${relay.url}/v1`,
      apiKey: "relay-key",
      headers: { "x-demo-fault": fault },
    })("demo")],
  ["@ai-sdk/openai (responses)", (fault) =>
    createOpenAI({
      baseURL: `${relay.url}/v1`,
      apiKey: "relay-key",
      headers: { "x-demo-fault": fault },
    }).responses("demo")],
];

/** The text and the errors of a `streamText` call, read to its end. */
async function run(model: LanguageModel): Promise<{ text: string; errors: unknown[] }> {
  const errors: unknown[] = [];
  const result = streamText({
    model,
    prompt: "Hi",
    maxRetries: 0,
    onError: ({ error }) => {
      errors.push(error);
    },
  });
  let text = "";
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") text += part.text;
    if (part.type === "error") errors.push(part.error);
  }
  return { text, errors };
}

describe.each(MODELS)("%s streamText against the relay", (_name, model) => {
  it("a 503 on the first attempt: the answer arrives whole", async () => {
    const before = upstream.requests().length;
    const { text, errors } = await run(model("attempt1=status:503"));
    expect(errors).toEqual([]);
    expect(text).toMatch(/^You said: "Hi"\. This is the stopstream demo model.*token\.$/);
    expect(upstream.requests().length).toBe(before + 2);
  });

  it("a caller abort closes the upstream request within 2 s, never retried", async () => {
    const before = upstream.requests().length;
    const abort = new AbortController();
    const result = streamText({
      model: model("word-delay=50"),
      prompt: "Hi",
      maxRetries: 0,
      abortSignal: abort.signal,
      onError: () => {},
    });
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") break;
    }
    const served = await upstream.request(before + 1);
    const aborted = Date.now();
    abort.abort();
    expect(await served.closed).toBe("aborted");
    expect(Date.now() - aborted).toBeLessThan(2_000);
    expect(upstream.requests().length).toBe(before + 1);
  });

  it("a drop mid-answer: an error, not a complete answer", async () => {
    const before = upstream.requests().length;
    const { text, errors } = await run(model("drop-after=5"));
    expect(errors.length).toBeGreaterThan(0);
    expect(text).not.toMatch(/token\.$/);
    expect(upstream.requests().length).toBe(before + 1);
  });
});
