/**
 * The stopstream relay for Hono: an OpenAI-compatible streaming endpoint (Cloudflare Workers,
 * or any runtime Hono runs on) that retries, falls back between providers, and stops the
 * upstream request the moment the caller disconnects.
 *
 * ```ts
 * import { Hono } from "hono";
 * import { createRelay } from "stopstream/hono";
 *
 * const app = new Hono();
 * app.route("/", createRelay({
 *   upstreams: [{ baseURL: "https://api.openai.com/v1", apiKey: "sk-…", protocol: "openai-chat" }],
 *   keys: ["my-relay-key"],
 * }));
 * export default app;
 * ```
 *
 * @module
 */

export * from "./src/relay/index.ts";
