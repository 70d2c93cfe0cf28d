// The relay (OpenAI-compatible out) fed every recorded provider stream of test/recorded/ as its
// upstream, read by the official `openai` SDK's stream helper and by a plain non-streaming
// request: nothing an upstream produced may make the relay or the SDK fail, every tool call of
// the caller's, of any kind, comes out as a function tool call (numbered from 0; the provider's
// own calls stay back), and cited sources as `annotations`.
import { readdirSync } from "node:fs";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import type { ChatResult, ProtocolName } from "../../src/index.ts";
import { EXPECTED } from "../recorded/expected.ts";
import { recordedRelay, recordedResult } from "../support/recorded_relay.ts";

const ROOT = new URL("../recorded/", import.meta.url);
const answered = Object.entries(EXPECTED).filter(([, expected]) => expected.error === undefined)
  .map(([name, expected]) => ({ name, protocol: expected.protocol }));

/** A relay whose one upstream answers every request with the recording `name`. */
function relay(name: string, protocol: ProtocolName): OpenAI {
  const app = recordedRelay(name, protocol);
  return new OpenAI({
    baseURL: "http://relay.test/v1",
    apiKey: "unused",
    maxRetries: 0,
    fetch: (input, init) => Promise.resolve(app.request(String(input), init)),
  });
}

/** The caller's calls only: the provider ran the others, and the relay keeps them back. */
function expectedCalls(result: ChatResult): unknown[] {
  return result.toolCalls.filter((call) => !call.providerExecuted).map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name || call.type, arguments: call.arguments },
  }));
}

function expectedAnnotations(result: ChatResult): unknown[] | undefined {
  const cited = (result.citations ?? []).filter((c) => c.url !== undefined);
  if (cited.length === 0) return undefined;
  return cited.map((c) => ({
    type: "url_citation",
    url_citation: {
      url: c.url,
      title: c.title ?? c.url,
      start_index: c.start ?? 0,
      end_index: c.end ?? 0,
    },
  }));
}

const request = {
  model: "any",
  messages: [{ role: "user" as const, content: "Hi" }],
};

test("the recorded corpus is all here", () => {
  const dirs = readdirSync(ROOT, { withFileTypes: true }).filter((d) => d.isDirectory());
  expect(dirs.map((d) => d.name).sort()).toEqual(["anthropic", "chat", "responses"]);
  expect(answered.length).toBeGreaterThan(40);
});

describe("the openai SDK's stream helper accepts what the relay makes of each recording", () => {
  test.each(answered)("$name", async ({ name, protocol }) => {
    const want = await recordedResult(name, protocol);
    const stream = relay(name, protocol).chat.completions.stream({
      ...request,
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0]!.message as unknown as Record<string, unknown>;
    expect(message.content ?? "").toBe(want.content);
    expect(message.tool_calls ?? []).toEqual(expectedCalls(want));
    expect(message.annotations).toEqual(expectedAnnotations(want));
    // A refusal is the whole answer of a refused request: a caller must get its text.
    expect(message.refusal ?? null).toBe(want.refusal ?? null);
    expect(completion.choices[0]!.finish_reason).toBe(want.finishReason);
  });
});

describe("a non-streaming request through the relay gives the same message", () => {
  test.each(answered)("$name", async ({ name, protocol }) => {
    const want = await recordedResult(name, protocol);
    const completion = await relay(name, protocol).chat.completions.create(request);
    const message = completion.choices[0]!.message as unknown as Record<string, unknown>;
    expect(message.content ?? "").toBe(want.content);
    expect(message.tool_calls ?? []).toEqual(expectedCalls(want));
    expect(message.annotations).toEqual(expectedAnnotations(want));
    expect(message.refusal ?? null).toBe(want.refusal ?? null);
  });
});

/** A chunk's choice, as much of it as is read here. */
interface Choice {
  delta?: Record<string, unknown>;
  finish_reason?: string | null;
}

/** The relay's chunks for the recording `name`, streamed, as parsed JSON (`[DONE]` left out). */
async function relayChunks(name: string, protocol: ProtocolName) {
  const response = await recordedRelay(name, protocol).request("/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...request, stream: true }),
  });
  return (await response.text()).split("\n").filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)) as { choices: Choice[] });
}

// docs/relay.md: cited sources come out on the delta just before the finish chunk, and so does
// a refusal, whole (unless an openai-chat upstream sent it after the answer began, which none of
// the recordings does: their refusals are the whole answer).
const placed = (await Promise.all(answered.map(async (c) => {
  const result = await recordedResult(c.name, c.protocol);
  return { ...c, annotations: expectedAnnotations(result), refusal: result.refusal || undefined };
}))).filter((c) => c.annotations !== undefined || c.refusal !== undefined);

describe("where the relay puts citations and a refusal in the stream", () => {
  test("several recordings have cited sources, and some a refusal", () => {
    expect(placed.filter((c) => c.annotations !== undefined).length).toBeGreaterThan(2);
    expect(placed.filter((c) => c.refusal !== undefined).length).toBeGreaterThan(0);
  });

  test.each(placed)("$name", async ({ name, protocol, annotations, refusal }) => {
    const choices = (await relayChunks(name, protocol)).map((c) => c.choices[0]);
    const finish = choices.findIndex((c) => c?.finish_reason);
    expect(finish).toBeGreaterThan(0);
    const before = choices.slice(0, finish);
    const where = (key: string) => before.flatMap((c, i) => c?.delta?.[key] ? [i] : []);
    // Each comes once, whole, on the deltas right before the finish chunk, and nowhere else.
    const at = [...where("annotations"), ...where("refusal")].sort((a, b) => a - b);
    expect(at.at(-1)).toBe(finish - 1);
    expect(at[0]).toBeGreaterThanOrEqual(finish - at.length);
    if (annotations !== undefined) {
      expect(where("annotations")).toHaveLength(1);
      expect(before[where("annotations")[0]!]!.delta!.annotations).toEqual(annotations);
    }
    if (refusal !== undefined) {
      expect(where("refusal")).toHaveLength(1);
      expect(before[where("refusal")[0]!]!.delta!.refusal).toBe(refusal);
    }
  });
});
