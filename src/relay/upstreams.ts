/**
 * The upstreams of `createRelay`, checked and resolved once: protocols, base URLs, and which key
 * each one sends.
 *
 * @module
 */

import type { ProtocolName } from "../chat_options.ts";
import { joinURL } from "../protocols/request.ts";
import type { RelayUpstream, ResolvedUpstream } from "./options.ts";

/**
 * The protocols an upstream may speak.
 *
 * @example
 * ```ts
 * PROTOCOLS.includes("openai-chat"); // true
 * ```
 */
export const PROTOCOLS: readonly ProtocolName[] = [
  "openai-chat",
  "anthropic-messages",
  "openai-responses",
];

/**
 * Whether `value` is an absolute `http:` or `https:` URL (what `fetch` can call).
 *
 * @example
 * ```ts
 * isHttpURL("https://api.openai.com/v1"); // true
 * isHttpURL("api.openai.com/v1"); // false
 * ```
 */
export function isHttpURL(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:";
}

/**
 * `configured`, each checked (the messages never quote a value) and resolved, with the key it
 * sends settled.
 *
 * @example
 * ```ts
 * resolveUpstreams([{ baseURL: "https://api.openai.com/v1", apiKey: "sk-…" }])[0]!.protocol; // "openai-chat"
 * ```
 */
export function resolveUpstreams(configured: readonly RelayUpstream[]): ResolvedUpstream[] {
  const resolved = configured.map((upstream, index): ResolvedUpstream => {
    const where = `upstreams[${index}]`;
    // No value in these messages: a base URL can carry an account token, and a misplaced key
    // can end up anywhere.
    if (typeof upstream.baseURL !== "string" || !isHttpURL(upstream.baseURL)) {
      throw new TypeError(`createRelay: ${where}.baseURL must be an absolute http(s) URL`);
    }
    const protocol = upstream.protocol ?? "openai-chat";
    if (!PROTOCOLS.includes(protocol)) {
      throw new TypeError(
        `createRelay: ${where}.protocol must be one of ${PROTOCOLS.join(", ")}`,
      );
    }
    if (upstream.apiKey !== undefined && typeof upstream.apiKey !== "string") {
      throw new TypeError(`createRelay: ${where}.apiKey must be a string`);
    }
    // A local server (vLLM, Ollama) needs no key; "" must not become `Bearer `.
    const apiKey = upstream.apiKey === "" ? undefined : upstream.apiKey;
    return { baseURL: upstream.baseURL, apiKey, protocol, model: upstream.model };
  });
  // A fallback on exactly the primary's base URL without a key of its own uses the primary's,
  // as the client's own fallbacks do. Settled here, in configured order: the cooldown reorders
  // the upstreams of a call, and the one that goes first must not be what decides who has a key.
  const [primary] = resolved;
  for (let i = 1; i < resolved.length; i++) {
    const upstream = resolved[i]!;
    if (
      configured[i]!.apiKey === undefined &&
      joinURL(upstream.baseURL, "") === joinURL(primary!.baseURL, "")
    ) upstream.apiKey = primary!.apiKey;
  }
  return resolved;
}
