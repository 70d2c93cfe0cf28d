/**
 * The demo model and the relay on it (`stopstream/demo`, JSR `./demo`): no provider, no key, no
 * network; faults on request through the `x-demo-fault` header. What `npm start` serves.
 *
 * @module
 */

export { createDemoRelay, DEMO_BASE_URL, demoFetch } from "./relay.ts";
export { createDemoUpstream, DEMO_FAULT_HEADER } from "./upstream.ts";
export type { DemoUpstreamOptions } from "./upstream.ts";
