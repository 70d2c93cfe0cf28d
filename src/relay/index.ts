/**
 * The relay's public surface (`stopstream/hono`, JSR `./hono`).
 *
 * @module
 */

export { createRelay } from "./app.ts";
export { relayOptionsFromEnv } from "./env.ts";
export type { RelayEnv } from "./env.ts";
export type { RelayCors, RelayOptions, RelayUpstream } from "./options.ts";
