// What a chunk the relay writes itself must keep of an upstream event, as the client's events do
// not carry it: `logprobs`, `reasoning_details` (OpenRouter), `extra_content` (Gemini).

import type { EventData } from "../protocols/event_data.ts";

/** Queued just before the events decoded from the same upstream event (same chunk). */
export interface UpstreamFields {
  type: "upstream-fields";
  logprobs: Record<string, unknown> | undefined;
  details: unknown[] | undefined;
  extra: unknown;
}

/** A cheap test before the parse; `reasoning_details: []` comes on every OpenRouter chunk. */
export const UPSTREAM_FIELDS =
  /"(?:logprobs"\s*:\s*\{|reasoning_details"\s*:\s*\[\s*[^\s\]]|extra_content")/;

/** Not JSON: `undefined`, as the decoder says what is wrong with it. */
export function upstreamFields(data: string): UpstreamFields | undefined {
  let choices: EventData;
  try {
    choices = JSON.parse(data)?.choices;
  } catch {
    return undefined;
  }
  // Choice 0's alone, as the answer is: another choice's fields must not join it.
  let choice: EventData;
  for (const c of Array.isArray(choices) ? choices : []) if ((c?.index ?? 0) === 0) choice ??= c;
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

/** Joins into `first`'s lists: the parse above made them and nobody else holds them. */
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

/** Only the lists are joined: a list is all a caller can join. */
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
