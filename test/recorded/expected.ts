/**
 * The expected result of every recording in this folder, keyed by its path here. Each was
 * written by reading the recording (never by running stopstream); SOURCES.md says where each
 * recording comes from and under which licence.
 *
 * @module
 */

import type { ProtocolName } from "../../src/index.ts";
import { ANTHROPIC } from "./expected_anthropic.ts";
import { CHAT } from "./expected_chat.ts";
import { RESPONSES } from "./expected_responses.ts";

/** What replaying one recording must give. */
export interface Expected {
  /** Compared with `toMatchObject` against `result` (matchers from `matchers.ts` allowed). */
  result?: Record<string, unknown>;
  /** Result fields that must be absent (e.g. `citations` when nothing is cited). */
  absent?: string[];
  /** The call rejects: the error's `name`, and its `cause`'s name. */
  error?: { name: string; cause?: string; retryable?: boolean };
  /** For a `PartialStreamError`: compared with `toMatchObject` against `error.partial`. */
  partial?: Record<string, unknown>;
  /** The ids of the calls the caller must run (those without `providerExecuted`), in order. */
  mine?: string[];
}

/** Every recording → its protocol and expected result. */
export const EXPECTED: Record<string, Expected & { protocol: ProtocolName }> = {
  ...withProtocol(ANTHROPIC, "anthropic-messages"),
  ...withProtocol(RESPONSES, "openai-responses"),
  ...withProtocol(CHAT, "openai-chat"),
};

function withProtocol(
  entries: Record<string, Expected>,
  protocol: ProtocolName,
): Record<string, Expected & { protocol: ProtocolName }> {
  const out: Record<string, Expected & { protocol: ProtocolName }> = {};
  for (const [name, expected] of Object.entries(entries)) out[name] = { ...expected, protocol };
  return out;
}
