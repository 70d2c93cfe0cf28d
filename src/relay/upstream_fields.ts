/**
 * What of an upstream `openai-chat` event a chunk the relay writes itself must keep, because the
 * client's events do not carry it: the choice's `logprobs`, the delta's `reasoning_details`
 * (OpenRouter's signed reasoning) and `extra_content` (Gemini's `thought_signature`). Found in a
 * decoded event's data (forward.ts), joined when several wait for one chunk (chunks.ts), and, for
 * an answer held whole, joined across the answer (logprobs.ts).
 *
 * @module
 */

import type { EventData } from "../protocols/event_data.ts";

/**
 * An event's fields for the encoder (see the module doc), each only when it holds something.
 * Queued by the fast path just before the events decoded from the same upstream event, so the
 * encoder puts them on the next chunk it writes — or, once the answer has begun, on a chunk of
 * their own when that event wrote none. Before it has begun they wait for the first delta
 * (joined with any later ones), and an attempt that fails takes its own with it: nothing of it
 * reaches the caller.
 *
 * @example
 * ```ts
 * const fields: UpstreamFields = { type: "upstream-fields", logprobs: { content: [] }, details: undefined, extra: undefined };
 * ```
 */
export interface UpstreamFields {
  type: "upstream-fields";
  logprobs: Record<string, unknown> | undefined;
  details: unknown[] | undefined;
  extra: unknown;
}

/**
 * Whether an event's data may hold {@linkcode UpstreamFields}: `logprobs` that are an object
 * (not `null`), `reasoning_details` that are a list that is not empty (OpenRouter sends `[]` on
 * every chunk), an `extra_content`. A cheap test before the one parse that tells.
 *
 * @example
 * ```ts
 * UPSTREAM_FIELDS.test('{"choices":[{"delta":{"content":"x"},"logprobs":null}]}'); // false
 * ```
 */
export const UPSTREAM_FIELDS =
  /"(?:logprobs"\s*:\s*\{|reasoning_details"\s*:\s*\[\s*[^\s\]]|extra_content")/;

/**
 * The {@linkcode UpstreamFields} of an event's choice 0, or `undefined` when it holds none (or
 * is not JSON: the decoder says what is wrong with it).
 *
 * @example
 * ```ts
 * upstreamFields('{"choices":[{"delta":{"content":"x"},"logprobs":{"content":[{"token":"x"}]}}]}')?.logprobs;
 * ```
 */
export function upstreamFields(data: string): UpstreamFields | undefined {
  let choice: EventData;
  try {
    choice = JSON.parse(data)?.choices?.[0];
  } catch {
    return undefined;
  }
  const logprobs = choice?.logprobs;
  const details = choice?.delta?.reasoning_details;
  const extra = choice?.delta?.extra_content ?? undefined;
  const fields: UpstreamFields = {
    type: "upstream-fields",
    logprobs: hasEntries(logprobs?.content) || hasEntries(logprobs?.refusal) ? logprobs : undefined,
    details: hasEntries(details) ? details : undefined,
    extra,
  };
  return fields.logprobs === undefined && fields.details === undefined && extra === undefined
    ? undefined
    : fields;
}

/**
 * Two events' fields as one, for one chunk: lists joined in order (into `first`'s, which the
 * parse above made and nobody else holds), the later `extra_content` kept.
 *
 * @example
 * ```ts
 * const fields = joinFields(waiting, next);
 * ```
 */
export function joinFields(first: UpstreamFields, then: UpstreamFields): UpstreamFields {
  return {
    type: "upstream-fields",
    logprobs: first.logprobs === undefined || then.logprobs === undefined
      ? first.logprobs ?? then.logprobs
      : joinLogprobs(first.logprobs, then.logprobs),
    details: first.details === undefined || then.details === undefined
      ? first.details ?? then.details
      : [...first.details, ...then.details],
    extra: then.extra ?? first.extra,
  };
}

/**
 * `logprobs`' lists (`content`, `refusal`) appended to those of `into`, in order; other keys
 * are left out (a list is all a caller can join).
 *
 * @example
 * ```ts
 * joinLogprobs({ content: [a] }, { content: [b], refusal: null }); // { content: [a, b] }
 * ```
 */
export function joinLogprobs(
  into: Record<string, unknown>,
  logprobs: Record<string, unknown>,
): Record<string, unknown> {
  for (const key of LISTS) {
    const list = logprobs[key];
    if (Array.isArray(list)) {
      const joined = (into[key] ??= []) as unknown[];
      for (const entry of list) joined.push(entry);
    }
  }
  return into;
}

const LISTS = ["content", "refusal"] as const;

function hasEntries(value: unknown): value is unknown[] {
  return Array.isArray(value) && value.length > 0;
}
