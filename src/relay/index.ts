/**
 * The relay's public surface (`stopstream/hono`, JSR `./hono`).
 *
 * @module
 */

export { createRelay } from "./app.ts";
export { relayOptionsFromEnv } from "./env.ts";
export type { RelayEnv } from "./env.ts";
export type { RelayCors, RelayFetch, RelayOptions } from "./options.ts";
export type { RelayUpstream } from "./upstreams.ts";
export { RelayStream } from "./streams/relay_stream.ts";
export type { RelayStreamOptions, RelayStreamState } from "./streams/relay_stream.ts";
export type { StreamStorage } from "./streams/stream_store.ts";
export type { RelayStreamNamespace } from "./streams/wire.ts";
export { RelayHealth } from "./health/relay_health.ts";
export { RelayLimits } from "./limits/relay_limits.ts";
export type { RelayNamespace } from "./durable.ts";
