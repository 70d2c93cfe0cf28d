import type { ProtocolName } from "../core/chat_options.ts";
import { PROTOCOLS as REGISTRY } from "../protocols/registry.ts";
import { joinURL } from "../protocols/request.ts";

/**
 * One model provider the relay may call; the first is the primary, the rest fallbacks in order.
 *
 * @example
 * ```ts
 * const upstream: RelayUpstream = {
 *   baseURL: "https://api.anthropic.com/v1", apiKey: "sk-ant-…", protocol: "anthropic-messages",
 * };
 * ```
 */
export interface RelayUpstream {
  /** E.g. `https://api.openai.com/v1`. Never chosen by the caller. */
  baseURL: string;
  /** The provider key; absent or `""` for a server that needs none. Never echoed to callers. */
  apiKey?: string;
  /** Default `"openai-chat"`. The relay translates requests and streams either way. */
  protocol?: ProtocolName;
  /** Replaces the caller's `model` for this upstream (needed when fallbacks use other providers). */
  model?: string;
}

/** The protocol is always set; an empty key is no key. */
export interface ResolvedUpstream {
  baseURL: string;
  apiKey: string | undefined;
  protocol: ProtocolName;
  model: string | undefined;
}

export const PROTOCOLS = Object.keys(REGISTRY) as readonly ProtocolName[];

export function isHttpURL(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === "http:" || protocol === "https:";
}

export function resolveUpstreams(configured: readonly RelayUpstream[]): ResolvedUpstream[] {
  const resolved = configured.map((upstream, index): ResolvedUpstream => {
    const where = `upstreams[${index}]`;
    // No value in these messages: a base URL may carry a token, or be a misplaced key.
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
