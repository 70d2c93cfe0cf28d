/**
 * docs/protocols.md promises the raw wire types as public API. Two checks: tsc (in
 * `npm run typecheck`) compiles the type import below only while `mod.ts` exports each, and the
 * test holds the doc's list and this one to each other, so a name added to the doc is checked too.
 */

import { readFileSync } from "node:fs";
import { expect, test } from "vitest";
import type * as stopstream from "../../mod.ts";

/** Each name, used in a type position: a name `mod.ts` does not export fails to compile. */
type WireTypes = [
  stopstream.AnthropicStreamEvent,
  stopstream.AnthropicMessage,
  stopstream.AnthropicContentBlock,
  stopstream.AnthropicDelta,
  stopstream.AnthropicUsage,
  stopstream.ResponsesStreamEvent,
  stopstream.ResponsesResponse,
  stopstream.ResponsesOutputItem,
  stopstream.ResponsesContentPart,
  stopstream.ResponsesAnnotation,
  stopstream.ResponsesUsage,
  stopstream.OpenAIChatChunk,
  stopstream.OpenAIContentPart,
];
const COMPILED: Record<keyof WireTypes & `${number}`, string> = {
  0: "AnthropicStreamEvent",
  1: "AnthropicMessage",
  2: "AnthropicContentBlock",
  3: "AnthropicDelta",
  4: "AnthropicUsage",
  5: "ResponsesStreamEvent",
  6: "ResponsesResponse",
  7: "ResponsesOutputItem",
  8: "ResponsesContentPart",
  9: "ResponsesAnnotation",
  10: "ResponsesUsage",
  11: "OpenAIChatChunk",
  12: "OpenAIContentPart",
};

test("every raw wire type docs/protocols.md lists is one mod.ts is compiled against", () => {
  const doc = readFileSync(new URL("../../docs/protocols.md", import.meta.url), "utf8");
  const sentence = /The raw wire types are exported[^:]*:([\s\S]*?)\.\n/.exec(doc);
  expect(sentence, "docs/protocols.md no longer lists the raw wire types").not.toBeNull();
  const listed = [...sentence![1]!.matchAll(/`(\w+)`/g)].map((match) => match[1]);
  expect(listed.sort()).toEqual(Object.values(COMPILED).sort());
});
