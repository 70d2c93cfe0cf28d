/**
 * Citations translated across protocols: every recording of test/recorded/ that cites (pages, and
 * files that have no URL) through `POST /v1/messages` and `POST /v1/responses`, read by the
 * official SDKs, streamed and `stream: false`. A cited page is an Anthropic
 * `web_search_result_location` on a text block, or a Responses `url_citation` annotation on the
 * `output_text` whose span covers the same text as the upstream's; a citation without a URL has
 * no counterpart and is left out. A recording of the caller's own protocol is passed through
 * (relay_inbound_recorded.test.ts).
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, test } from "vitest";
import type { ChatResult } from "../../src/index.ts";
import { createRelay } from "../../src/relay/app.ts";
import { EXPECTED } from "../recorded/expected.ts";
import { recordedRelay, recordedResult } from "../support/recorded_relay.ts";
import { chunk, DONE, sse } from "../support/sse.ts";

type Fetch = typeof globalThis.fetch;
type OutputItem = OpenAI.Responses.ResponseOutputItem;

/** The recordings whose expected result cites something. */
const CITED = Object.entries(EXPECTED)
  .filter(([, expected]) => expected.error === undefined && expected.result?.citations)
  .map(([name, expected]) => ({ name, protocol: expected.protocol }));

const MESSAGES_REQUEST = {
  model: "any",
  max_tokens: 100,
  messages: [{ role: "user" as const, content: "Hi" }],
};
const RESPONSES_REQUEST = { model: "any", input: "Hi" };

const anthropicClient = (fetch: Fetch) =>
  new Anthropic({ baseURL: "http://relay.test", apiKey: "unused", maxRetries: 0, fetch });
const openaiClient = (fetch: Fetch) =>
  new OpenAI({ baseURL: "http://relay.test/v1", apiKey: "unused", maxRetries: 0, fetch });

function fetchOf(relay: ReturnType<typeof createRelay>): Fetch {
  return (input, init) => Promise.resolve(relay.request(String(input), init));
}

/** The cited pages of `result`: what has a counterpart in the other protocols. */
const pages = (result: ChatResult) => (result.citations ?? []).filter((c) => c.url !== undefined);

/** The data of each SSE event of `text`. */
function events(text: string): Array<Record<string, unknown>> {
  return [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!));
}

/**
 * Anthropic streams one content block at a time: a delta or a stop for any block but the one
 * open is out of order. Returns the out-of-order events.
 */
function outOfOrder(text: string): unknown[] {
  let open = -1;
  const wrong: unknown[] = [];
  for (const data of events(text)) {
    if (data.type === "content_block_start") {
      if (open !== -1) wrong.push(data);
      open = data.index as number;
    } else if (data.type === "content_block_delta" || data.type === "content_block_stop") {
      if (data.index !== open) wrong.push(data);
      if (data.type === "content_block_stop") open = -1;
    }
  }
  return wrong;
}

const citationsOf = (message: Anthropic.Message) =>
  message.content.flatMap((block) => block.type === "text" ? block.citations ?? [] : []);

/** Each `output_text` annotation of `output`, with its part's text. */
function annotationsOf(output: OutputItem[]) {
  return output.flatMap((item) =>
    item.type === "message"
      ? item.content.flatMap((part) =>
        part.type === "output_text"
          ? part.annotations.map((annotation) => ({ text: part.text, annotation, item: item.id }))
          : []
      )
      : []
  );
}

test("the corpus cites pages and files, in each of the three protocols", () => {
  expect(new Set(CITED.map((c) => c.protocol))).toEqual(
    new Set(["anthropic-messages", "openai-chat", "openai-responses"]),
  );
  expect(CITED.length).toBeGreaterThanOrEqual(8);
});

describe("POST /v1/messages: the Anthropic SDK's text blocks hold the cited pages", () => {
  const translated = CITED.filter((c) => c.protocol !== "anthropic-messages");
  test.each(translated)("$name", async ({ name, protocol }) => {
    const want = pages(await recordedResult(name, protocol)).map((c) => ({
      type: "web_search_result_location",
      url: c.url,
      title: c.title ?? null,
      encrypted_index: "",
      cited_text: c.citedText ?? "",
    }));
    const relay = recordedRelay(name, protocol);
    const client = anthropicClient(fetchOf(relay));
    const stream = client.messages.stream(MESSAGES_REQUEST);
    const seen: unknown[] = [];
    stream.on("citation", (citation) => seen.push(citation));
    expect(citationsOf(await stream.finalMessage())).toEqual(want);
    expect(seen).toEqual(want);
    expect(citationsOf(await client.messages.create(MESSAGES_REQUEST))).toEqual(want);
    const raw = await relay.request("/v1/messages", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...MESSAGES_REQUEST, stream: true }),
    });
    expect(outOfOrder(await raw.text())).toEqual([]);
  });
});

describe("POST /v1/responses: the openai SDK's output_text holds the cited pages", () => {
  const translated = CITED.filter((c) => c.protocol !== "openai-responses");
  test.each(translated)("$name", async ({ name, protocol }) => {
    const result = await recordedResult(name, protocol);
    const want = pages(result);
    const client = openaiClient(fetchOf(recordedRelay(name, protocol)));
    const stream = client.responses.stream(RESPONSES_REQUEST);
    const added: OpenAI.Responses.ResponseOutputTextAnnotationAddedEvent[] = [];
    const done: OutputItem[] = [];
    for await (const event of stream) {
      if (event.type === "response.output_text.annotation.added") added.push(event);
      if (event.type === "response.output_item.done") done.push(event.item);
    }
    const completed = (await stream.finalResponse()).output;
    const whole = (await client.responses.create(RESPONSES_REQUEST)).output;
    for (const output of [done, completed, whole]) {
      const annotations = annotationsOf(output);
      const cited = annotations.map(({ annotation: a }) =>
        a.type === "url_citation" ? [a.url, a.title] : a
      );
      expect(cited).toEqual(want.map((c) => [c.url, c.title ?? c.url]));
      // Each span covers the text the upstream's covered ("" for a citation without a span).
      expect(
        annotations.map(({ text, annotation: a }) =>
          a.type === "url_citation" ? text.slice(a.start_index, a.end_index) : a
        ),
      ).toEqual(want.map((c) => result.content.slice(c.start ?? 0, c.end ?? 0)));
    }
    // Streamed as they were added, each where the finished response has it.
    const final = annotationsOf(completed);
    expect(added.map((e) => [e.item_id, e.annotation])).toEqual(
      final.map(({ item, annotation }) => [item, annotation]),
    );
    const counted = new Map<string, number>();
    for (const event of added) {
      expect(completed[event.output_index]?.id).toBe(event.item_id);
      const index = counted.get(event.item_id) ?? 0;
      counted.set(event.item_id, index + 1);
      expect(event.annotation_index).toBe(index);
    }
  });
});

describe("an answer that ends on a tool call: its citations in a block of their own", () => {
  const URL = "https://example.com/docs";
  /** Text, a tool call, then the annotation (as OpenAI sends them, just before the finish). */
  const STREAM = [
    chunk({ role: "assistant", content: "See the docs." }),
    chunk({
      tool_calls: [{
        index: 0,
        id: "call_1",
        type: "function",
        function: { name: "lookup", arguments: "{}" },
      }],
    }),
    chunk({
      annotations: [{
        type: "url_citation",
        url_citation: { url: URL, title: "Docs", start_index: 4, end_index: 12 },
      }],
    }),
    chunk({}, "tool_calls"),
  ].map((c) => sse(c)).join("") + DONE;

  function chatRelay(): { relay: ReturnType<typeof createRelay>; requests: () => number } {
    let requests = 0;
    const relay = createRelay({
      upstreams: [{ baseURL: "https://upstream.test/v1", apiKey: "sk-up", model: "up" }],
      fetch: () => {
        requests++;
        return Promise.resolve(
          new Response(STREAM, { headers: { "content-type": "text/event-stream" } }),
        );
      },
      maxRetries: 0,
    });
    return { relay, requests: () => requests };
  }

  test("Anthropic: a text block after the tool_use, in order, holds the citation", async () => {
    const { relay, requests } = chatRelay();
    const response = await relay.request("/v1/messages", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...MESSAGES_REQUEST, stream: true }),
    });
    const text = await response.text();
    expect(outOfOrder(text)).toEqual([]);
    const message = await anthropicClient(() => Promise.resolve(new Response(text))).messages
      .stream(MESSAGES_REQUEST).finalMessage();
    const citation = {
      type: "web_search_result_location",
      url: URL,
      title: "Docs",
      encrypted_index: "",
      cited_text: "",
    };
    expect(message.content).toEqual([
      { type: "text", text: "See the docs." },
      { type: "tool_use", id: "call_1", name: "lookup", input: {} },
      { type: "text", text: "", citations: [citation] },
    ]);
    // `stream: false` has one text block, before the call, as the whole answer has it.
    const whole = await anthropicClient(fetchOf(relay)).messages.create(MESSAGES_REQUEST);
    expect(whole.content.map((b) => b.type === "text" ? b.citations : b.type)).toEqual([
      [citation],
      "tool_use",
    ]);
    expect(requests()).toBe(2);
  });

  test("Responses: a message item after the function_call holds the annotation", async () => {
    const { relay, requests } = chatRelay();
    const client = openaiClient(fetchOf(relay));
    const stream = client.responses.stream(RESPONSES_REQUEST);
    const added: unknown[] = [];
    for await (const event of stream) {
      if (event.type === "response.output_text.annotation.added") added.push(event.output_index);
    }
    const output = (await stream.finalResponse()).output;
    expect(output.map((item) => item.type)).toEqual(["message", "function_call", "message"]);
    // Its span was in the first message: in a message of its own it has none.
    const annotation = {
      type: "url_citation",
      url: URL,
      title: "Docs",
      start_index: 0,
      end_index: 0,
    };
    expect(annotationsOf(output).map((a) => [a.text, a.annotation])).toEqual([["", annotation]]);
    expect(added).toEqual([2]);
    // `stream: false`: the message before the call holds it, its span kept.
    const whole = await client.responses.create(RESPONSES_REQUEST);
    expect(annotationsOf(whole.output).map((a) => [a.text, a.annotation])).toEqual([
      ["See the docs.", { ...annotation, start_index: 4, end_index: 12 }],
    ]);
    expect(requests()).toBe(2);
  });
});
