import type { Citation } from "../core/chat_result.ts";
import type { EventData } from "./event_data.ts";

/** `fallback` when `text` is empty or not JSON (a tool input cut short, a text error body). */
export function parseOr(text: string, fallback: unknown): unknown {
  if (text === "") return fallback;
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

/** Only the fields that have a value; `source` is the provider's object, as sent. */
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

/** A delta of a kind stopstream does not know: strings extend, arrays append, others replace. */
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
