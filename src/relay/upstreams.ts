import type { ProtocolName } from "../core/chat_options.ts";
import { joinURL } from "../protocols/request.ts";
import type { RelayUpstream, ResolvedUpstream } from "./options.ts";

export const PROTOCOLS: readonly ProtocolName[] = [
  "openai-chat",
  "anthropic-messages",
  "openai-responses",
];

export function isHttpURL(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:";
}

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
  // A keyless fallback on the primary's base URL uses its key, as the client's fallbacks do;
  // settled in configured order, as the cooldown reorders a call's upstreams.
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
