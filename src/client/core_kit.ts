/**
 * What the lazily loaded modules (the Anthropic and Responses decoders, the resumable-stream
 * client, the non-streaming fallback) use of the core, handed to them when they load instead
 * of imported. Why: a module that both the entry and a lazy module import is put by every
 * splitting bundler (esbuild, Rollup, Vite, webpack) into a chunk of its own, and that second
 * file costs every app about 750 B of gzip (it loses the entry's compression context) — more
 * than half of what the lazy modules save. So a lazy module imports only types from the core and reads these through
 * `core` (lazy_core.ts); `test/unit/bundle_size.test.ts` fails when the entry is split again.
 *
 * @module
 */

import { Accumulator } from "../core/accumulator.ts";
import { noop } from "./call_control.ts";
import { APIStatusError, StreamProtocolError } from "../core/error_classes.ts";
import { malformedMessage } from "../core/error_messages.ts";
import {
  isAPIStatusError,
  isInterruptedError,
  isUpstreamStreamError,
} from "../core/error_guards.ts";
import { errorEventPayload, parseEventData } from "../protocols/event_data.ts";
import { citation, mergeDelta, parseOr } from "../protocols/output.ts";
import { joinURL } from "../protocols/request.ts";
import { upstreamError } from "../protocols/upstream_error.ts";
import { usage } from "../protocols/usage.ts";
import { fetchFollowing } from "./redirects.ts";
import { isRetryable } from "./retry_policy.ts";
import { withAttempts } from "./partial_outcome.ts";
import { errorInBody, headersToRecord, pickRateLimit } from "./response.ts";
import { Attempt } from "./transport.ts";
import { readText } from "./whole_body.ts";

/** The core's helpers a lazily loaded module may use (each is documented where it is defined). */
export interface CoreKit {
  APIStatusError: typeof APIStatusError;
  Accumulator: typeof Accumulator;
  Attempt: typeof Attempt;
  StreamProtocolError: typeof StreamProtocolError;
  citation: typeof citation;
  errorEventPayload: typeof errorEventPayload;
  errorInBody: typeof errorInBody;
  fetchFollowing: typeof fetchFollowing;
  headersToRecord: typeof headersToRecord;
  isAPIStatusError: typeof isAPIStatusError;
  isInterruptedError: typeof isInterruptedError;
  isRetryable: typeof isRetryable;
  isUpstreamStreamError: typeof isUpstreamStreamError;
  joinURL: typeof joinURL;
  malformedMessage: typeof malformedMessage;
  mergeDelta: typeof mergeDelta;
  noop: typeof noop;
  parseEventData: typeof parseEventData;
  parseOr: typeof parseOr;
  pickRateLimit: typeof pickRateLimit;
  readText: typeof readText;
  upstreamError: typeof upstreamError;
  usage: typeof usage;
  withAttempts: typeof withAttempts;
}

/**
 * The one kit, passed to a lazy module's factory as it loads.
 *
 * @example
 * ```ts
 * import("../protocols/anthropic_decoder.ts").then((module) => module.anthropicDecoding(CORE_KIT));
 * ```
 */
export const CORE_KIT: CoreKit = {
  APIStatusError,
  Accumulator,
  Attempt,
  StreamProtocolError,
  citation,
  errorEventPayload,
  errorInBody,
  fetchFollowing,
  headersToRecord,
  isAPIStatusError,
  isInterruptedError,
  isRetryable,
  isUpstreamStreamError,
  joinURL,
  malformedMessage,
  mergeDelta,
  noop,
  parseEventData,
  parseOr,
  pickRateLimit,
  readText,
  upstreamError,
  usage,
  withAttempts,
};
