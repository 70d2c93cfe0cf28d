/**
 * OpenRouter's `delta.reasoning_details`: a fragment on every reasoning chunk, merged into the
 * detail of its `index` and `type` (text-like fields concatenated, the others kept from the
 * first fragment that has them), so `result.output.reasoning_details` can be sent back whole.
 * The recorded stream (test/recorded/chat/openrouter_reasoning_details.sse) has one kind at one
 * index; these are the corners it does not reach.
 */

import { expect, test } from "vitest";
import { streamChat } from "../../src/index.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import type { AssistantMessage } from "../../src/core/chat_result.ts";
import { chunk, DONE, sse } from "../support/sse.ts";

const FORMAT = "anthropic-claude-v1";

/** The answer to a stream whose chunks carry these `reasoning_details` lists, in order. */
async function detailsOf(lists: unknown[][], extra: Partial<StreamChatOptions> = {}) {
  const body = lists.map((list) => sse(chunk({ content: "", reasoning_details: list }))).join("") +
    sse(chunk({ content: "4" })) + sse(chunk({}, "stop")) + DONE;
  const fetch = () =>
    Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } }));
  const result = await streamChat({
    baseURL: "https://openrouter.test/api/v1",
    body: { model: "m", messages: [] },
    fetch,
    ...extra,
  }).result;
  return (result.output as AssistantMessage | undefined)?.reasoning_details;
}

test("fragments of one index and type merge: text and signature concatenate, the first format stays", async () => {
  const details = await detailsOf([
    [],
    [{ type: "reasoning.text", text: "", signature: "", format: FORMAT, index: 0 }],
    [{ type: "reasoning.text", text: "2+2 ", format: FORMAT, index: 0 }],
    [{ type: "reasoning.text", text: "is 4.", format: FORMAT, index: 0 }],
    [{ type: "reasoning.text", signature: "Et0B", format: "other", index: 0, id: "rs_1" }],
    [],
  ]);
  expect(details).toEqual([
    {
      type: "reasoning.text",
      text: "2+2 is 4.",
      signature: "Et0B",
      format: FORMAT,
      index: 0,
      id: "rs_1",
    },
  ]);
});

test("a second kind at one index is a detail of its own, and each kind's fragments still find theirs", async () => {
  const details = await detailsOf([
    [{ type: "reasoning.text", text: "A", index: 0 }],
    [{ type: "reasoning.encrypted", data: "E1", index: 0 }],
    [{ type: "reasoning.text", text: "B", index: 0 }],
    [{ type: "reasoning.encrypted", data: "E2", index: 0 }, {
      type: "reasoning.text",
      text: "C",
      index: 1,
    }],
    [{ type: "reasoning.text", text: "D", index: 0 }, {
      type: "reasoning.text",
      text: "E",
      index: 1,
    }],
  ]);
  expect(details).toEqual([
    { type: "reasoning.text", text: "ABD", index: 0 },
    { type: "reasoning.encrypted", data: "E1E2", index: 0 },
    { type: "reasoning.text", text: "CE", index: 1 },
  ]);
});

test("fragments without an index are details of their own; what is not an object is skipped", async () => {
  const details = await detailsOf([
    [{ type: "reasoning.summary", summary: "First." }, null, "text", 7],
    [{ type: "reasoning.summary", summary: "Second." }],
  ]);
  expect(details).toEqual([
    { type: "reasoning.summary", summary: "First." },
    { type: "reasoning.summary", summary: "Second." },
  ]);
});
