/**
 * The relay's text deltas read without a JSON parse (src/relay/plain_text.ts): only an event that
 * is certainly a plain text delta is taken, its text exactly what `JSON.parse` would find, and
 * anything a hostile upstream could hide in one (another type, an error, a second data line, an
 * escaped key) goes to the decoder. End to end (recorded streams through every route):
 * relay_inbound_recorded.test.ts.
 */

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { plainText, sequenceNumber, unquote } from "../../src/relay/plain_text.ts";
import { chunk } from "../support/sse.ts";
import { seedFor } from "../support/seed.ts";

const SEED = seedFor("relay_plain_text");

const anthropic = (text: unknown, index = 0) =>
  JSON.stringify({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
const responses = (delta: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: "response.output_text.delta",
    sequence_number: 7,
    item_id: "msg_1",
    output_index: 0,
    content_index: 0,
    delta,
    logprobs: [],
    ...extra,
  });
const chat = (delta: Record<string, unknown>) => JSON.stringify(chunk(delta));

/** The text `plainText` reads, or `undefined` when it leaves the event to the decoder. */
function read(...args: Parameters<typeof plainText>): string | undefined {
  const json = plainText(...args);
  return json === undefined ? undefined : unquote(json);
}

describe("plainText: what is read without a parse", () => {
  test("any text, in each protocol's text delta, is exactly what JSON.parse finds", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(read("anthropic-messages", "content_block_delta", anthropic(text))).toBe(text);
        expect(read("anthropic-messages", undefined, anthropic(text, 3))).toBe(text);
        expect(read("openai-responses", undefined, responses(text))).toBe(text);
        expect(read("openai-chat", undefined, chat({ content: text }))).toBe(text);
        expect(read("openai-chat", undefined, chat({ role: "assistant", content: text }))).toBe(
          text,
        );
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  test.each(
    [
      ["anthropic: another event name", "anthropic-messages", "error", anthropic("a")],
      [
        "anthropic: a thinking delta",
        "anthropic-messages",
        undefined,
        JSON.stringify({
          type: "content_block_delta",
          index: 0,
          delta: { type: "thinking_delta" },
        }),
      ],
      [
        "anthropic: a field more",
        "anthropic-messages",
        undefined,
        anthropic("a").replace(
          '{"type":"content_block_delta"',
          '{"type":"content_block_delta","x":1',
        ),
      ],
      [
        "anthropic: a second type (JSON keeps the last)",
        "anthropic-messages",
        undefined,
        anthropic("a").slice(0, -1) + ',"type":"error"}',
      ],
      [
        "anthropic: a raw line break in the text",
        "anthropic-messages",
        undefined,
        anthropic("a").replace('"a"', '"a\nb"'),
      ],
      ["responses: another event name", "openai-responses", "error", responses("a")],
      [
        "responses: a second type",
        "openai-responses",
        undefined,
        responses("a", { error: { type: "server_error" } }),
      ],
      [
        "responses: a refusal delta",
        "openai-responses",
        undefined,
        responses("a").replace("output_text", "refusal"),
      ],
      [
        "responses: two data lines",
        "openai-responses",
        undefined,
        `${responses("a")}\n${responses("b")}`,
      ],
      ["responses: a delta that is no string", "openai-responses", undefined, responses(1)],
      ["chat: an event name", "openai-chat", "message", chat({ content: "a" })],
      [
        "chat: reasoning beside the text",
        "openai-chat",
        undefined,
        chat({ content: "a", reasoning_content: "r" }),
      ],
      ["chat: a refusal", "openai-chat", undefined, chat({ refusal: "no" })],
      [
        "chat: a finish reason",
        "openai-chat",
        undefined,
        JSON.stringify(chunk({ content: "a" }, "stop")),
      ],
      [
        "chat: an error beside the delta",
        "openai-chat",
        undefined,
        JSON.stringify({ ...chunk({ content: "a" }), error: { message: "m" } }),
      ],
      [
        "chat: an escaped key",
        "openai-chat",
        undefined,
        chat({ content: "a" }).replace('"content"', '"\\u0063ontent"'),
      ],
    ] as const,
  )("%s: left to the decoder", (_name, protocol, event, data) => {
    expect(plainText(protocol, event, data)).toBeUndefined();
  });

  test("a Responses delta's position is read too", () => {
    expect(sequenceNumber(responses("a"))).toBe(7);
    expect(sequenceNumber(JSON.stringify({ type: "x" }))).toBeUndefined();
  });
});
