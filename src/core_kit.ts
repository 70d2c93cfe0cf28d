/**
 * What the lazily loaded modules (the Anthropic and Responses decoders, the resumable-stream
 * client) use of the core, handed to them when they load instead of imported. Why: a module
 * that both the entry and a lazy module import is put by every splitting bundler (esbuild,
 * Rollup, Vite, webpack) into a chunk of its own, and that second file costs every app about
 * 750 B of gzip (it loses the entry's compression context) — more than half of what the lazy
 * modules save. So a lazy module imports only types from the core and reads these through
 * `core` (lazy_core.ts); `test/unit/bundle_size.test.ts` fails when the entry is split again.
 *
 * @module
 */

import { noop } from "./call_control.ts";
import { StreamProtocolError } from "./error_classes.ts";
import { isAPIStatusError, isInterruptedError, isUpstreamStreamError } from "./error_guards.ts";
import { errorEventPayload, parseEventData } from "./protocols/event_data.ts";
import { citation, mergeDelta, parseOr } from "./protocols/output.ts";
import { joinURL } from "./protocols/request.ts";
import { upstreamError } from "./protocols/upstream_error.ts";
import { usage } from "./protocols/usage.ts";
import { fetchFollowing } from "./redirects.ts";
import { isRetryable } from "./retry_policy.ts";

/** The core's helpers a lazily loaded module may use (each is documented where it is defined). */
export interface CoreKit {
  StreamProtocolError: typeof StreamProtocolError;
  citation: typeof citation;
  errorEventPayload: typeof errorEventPayload;
  fetchFollowing: typeof fetchFollowing;
  isAPIStatusError: typeof isAPIStatusError;
  isInterruptedError: typeof isInterruptedError;
  isRetryable: typeof isRetryable;
  isUpstreamStreamError: typeof isUpstreamStreamError;
  joinURL: typeof joinURL;
  mergeDelta: typeof mergeDelta;
  noop: typeof noop;
  parseEventData: typeof parseEventData;
  parseOr: typeof parseOr;
  upstreamError: typeof upstreamError;
  usage: typeof usage;
}

/**
 * The one kit, passed to a lazy module's factory as it loads.
 *
 * @example
 * ```ts
 * import("./protocols/anthropic_decoder.ts").then((module) => module.anthropicDecoding(CORE_KIT));
 * ```
 */
export const CORE_KIT: CoreKit = {
  StreamProtocolError,
  citation,
  errorEventPayload,
  fetchFollowing,
  isAPIStatusError,
  isInterruptedError,
  isRetryable,
  isUpstreamStreamError,
  joinURL,
  mergeDelta,
  noop,
  parseEventData,
  parseOr,
  upstreamError,
  usage,
};
