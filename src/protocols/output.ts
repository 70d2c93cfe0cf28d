/**
 * What the protocols' output assemblers share: reading a JSON value that may be cut short, and
 * building a normalised {@linkcode Citation} from a provider's own citation object.
 *
 * @module
 */

import type { Citation } from "../chat_result.ts";
import type { EventData } from "./event_data.ts";

/**
 * `text` parsed as JSON, or `fallback` when it is empty or not JSON (a tool input cut short, an
 * error body that is text).
 *
 * @example
 * ```ts
 * parseOr('{"city":"Oslo"}', {}); // { city: "Oslo" }
 * parseOr('{"ci', {}); // {}
 * ```
 */
export function parseOr(text: string, fallback: unknown): unknown {
  if (text === "") return fallback;
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/**
 * A {@linkcode Citation} with only the fields that have a value (`source` is the provider's
 * object, kept as it is).
 *
 * @example
 * ```ts
 * citation("https://example.com/", "Example", undefined, 0, 12, { type: "url_citation" });
 * ```
 */
export function citation(
  url: unknown,
  title: unknown,
  citedText: unknown,
  start: unknown,
  end: unknown,
  source: unknown,
): Citation {
  const result: Citation = {};
  if (typeof url === "string" && url !== "") result.url = url;
  if (typeof title === "string" && title !== "") result.title = title;
  if (typeof citedText === "string" && citedText !== "") result.citedText = citedText;
  if (typeof start === "number") result.start = start;
  if (typeof end === "number") result.end = end;
  result.source = source;
  return result;
}

/**
 * Appends a delta of a block or item kind stopstream does not know to the object it belongs
 * to, field by field: a string extends the string already there, an array is appended, any
 * other value replaces it. Providers stream new kinds this way (`compaction_delta` carries
 * `content`), so the object ends up as the provider would have sent it whole.
 *
 * @example
 * ```ts
 * const block = { type: "compaction", content: null };
 * mergeDelta(block, { type: "compaction_delta", content: "Summary" }); // block.content === "Summary"
 * ```
 */
export function mergeDelta(target: EventData, delta: EventData): void {
  if (target === null || typeof target !== "object" || delta === null) return;
  for (const key in delta) {
    if (key === "type") continue;
    const value = delta[key];
    const current = target[key];
    if (typeof value === "string") {
      target[key] = typeof current === "string" ? current + value : value;
    } else if (Array.isArray(value) && Array.isArray(current)) {
      current.push(...value);
    } else {
      target[key] = value;
    }
  }
}
