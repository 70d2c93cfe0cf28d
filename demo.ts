/**
 * The demo model and the relay on it, for trying the relay without a provider: mount
 * `createDemoRelay()` where you would mount `createRelay(…)`, and ask it for faults with the
 * `x-demo-fault` header.
 *
 * ```ts
 * import { Hono } from "hono";
 * import { createDemoRelay } from "stopstream/demo";
 *
 * const app = new Hono();
 * app.route("/", createDemoRelay());
 * export default app;
 * ```
 *
 * @module
 */

export * from "./src/apps/demo/index.ts";
