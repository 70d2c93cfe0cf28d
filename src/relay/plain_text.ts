// Most of an answer is text deltas, and parsing each as JSON is most of the relay's work. An event
// that is certainly a plain text delta gives its text as the JSON string it holds, without a
// parse; anything else (other fields, escapes in keys, extra lines) is left to the decoder.

import type { ProtocolName } from "../core/chat_options.ts";
import { forwardable } from "./forward.ts";

/** A JSON string on one line: `"…"` with its escapes. */
const STRING = String.raw`"[^"\\\n]*(?:\\.[^"\\\n]*)*"`;
/** Anthropic writes its text deltas in this one shape; the whole event must match. */
const ANTHROPIC = new RegExp(
  String
    .raw`^\{"type":"content_block_delta","index":\d+,"delta":\{"type":"text_delta","text":(${STRING})\}\}$`,
);
const ANTHROPIC_EVENT = "content_block_delta";
/** A chat delta holding only content (and the role): its chunk already passed `forwardable`. */
const CHAT = new RegExp(
  String
    .raw`"delta"\s*:\s*\{\s*(?:"role"\s*:\s*"assistant"\s*,\s*)?"content"\s*:\s*(${STRING})\s*\}`,
);
/** Providers order a Responses delta's fields as they like: its one `"type"` names it. */
const RESPONSES_PREFIX = '{"type":"response.output_text.delta",';
const RESPONSES_EVENT = "response.output_text.delta";
const RESPONSES_DELTA = new RegExp(String.raw`"delta":(${STRING})`);
const SEQUENCE = /"sequence_number":(\d+)/;

/** The text of a plain text delta of `protocol` as a JSON string, or `undefined`. */
export function plainText(
  protocol: ProtocolName,
  event: string | undefined,
  data: string,
): string | undefined {
  switch (protocol) {
    case "anthropic-messages":
      if (event !== undefined && event !== ANTHROPIC_EVENT) return undefined;
      return ANTHROPIC.exec(data)?.[1];
    case "openai-chat":
      return event === undefined && forwardable(data) ? CHAT.exec(data)?.[1] : undefined;
    case "openai-responses":
      if (event !== undefined && event !== RESPONSES_EVENT) return undefined;
      if (!data.startsWith(RESPONSES_PREFIX) || data.indexOf('"type"', 2) !== -1) return undefined;
      // A line break would make it two data lines, which the decoder refuses.
      return data.indexOf("\n") === -1 ? RESPONSES_DELTA.exec(data)?.[1] : undefined;
  }
}

/** The text a JSON string holds; most hold no escape. */
export function unquote(json: string): string {
  return json.indexOf("\\") === -1 ? json.slice(1, -1) : JSON.parse(json);
}

/** A Responses event's position (see `StreamDecoder.cursor`), read without a parse. */
export function sequenceNumber(data: string): number | undefined {
  const found = SEQUENCE.exec(data)?.[1];
  return found === undefined ? undefined : Number(found);
}
