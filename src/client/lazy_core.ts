/**
 * The core's helpers as the lazily loaded modules see them: handed in by the module's factory
 * when it loads (core_kit.ts says why they are not imported). Only lazily loaded modules import
 * this file; nothing reads `core` before its factory has run.
 *
 * @module
 */

import type { CoreKit } from "./core_kit.ts";
import type * as Outcomes from "../protocols/protocol.ts";

/**
 * The core's helpers, once a lazy module's factory received them (a live binding).
 *
 * @example
 * ```ts
 * core.parseEventData('{"type":"ping"}'); // { type: "ping" }
 * ```
 */
export let core: CoreKit;

/**
 * Stores the kit a lazy module's factory was given; the same kit every time.
 *
 * @example
 * ```ts
 * export function anthropicDecoding(kit: CoreKit): ProtocolDecoding {
 *   useCore(kit);
 *   return DECODING;
 * }
 * ```
 */
export function useCore(kit: CoreKit): void {
  core = kit;
}

// A decoder's `onEvent` results, as protocol.ts defines them. Restated here because importing a
// value from protocol.ts would split it into a chunk of its own (core_kit.ts); each is typed as
// protocol.ts's constant, so tsc fails if the two ever differ.
/** `onEvent` result: progress (see protocol.ts). */
export const EVENT_PROGRESS: typeof Outcomes.EVENT_PROGRESS = 0;
/** `onEvent` result: the terminal event (see protocol.ts). */
export const EVENT_TERMINAL: typeof Outcomes.EVENT_TERMINAL = 1;
/** `onEvent` result: not progress, a keep-alive (see protocol.ts). */
export const EVENT_KEEPALIVE: typeof Outcomes.EVENT_KEEPALIVE = 2;
