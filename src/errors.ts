/**
 * The typed errors in one import: the classes (`error_classes.ts`) and their guards
 * (`error_guards.ts`). Re-exports only; bundlers flatten it away.
 *
 * @module
 */

export {
  APIStatusError,
  ConnectionError,
  InterruptedError,
  PartialStreamError,
  RedirectError,
  StopstreamError,
  StreamProtocolError,
  TimeoutError,
  UpstreamStreamError,
} from "./error_classes.ts";
export type { RedirectReason, TimeoutPhase } from "./error_classes.ts";
export {
  isAPIStatusError,
  isConnectionError,
  isInterruptedError,
  isPartialStreamError,
  isRedirectError,
  isStopstreamError,
  isStreamProtocolError,
  isTimeoutError,
  isUpstreamStreamError,
} from "./error_guards.ts";
