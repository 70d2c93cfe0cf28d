import type { ProtocolName, StreamChatOptions } from "../core/chat_options.ts";
import type { RelayFailure } from "./error_response.ts";
import type { ResolvedUpstream } from "./upstreams.ts";

/** A provider's beta header goes to that provider's upstreams only. */
const BETA_HEADERS: Readonly<Record<string, ProtocolName[]>> = {
  "anthropic-beta": ["anthropic-messages"],
  "openai-beta": ["openai-chat", "openai-responses"],
};

export function callOptions(
  upstreams: readonly ResolvedUpstream[],
  bodyFor: (protocol: ProtocolName, model: string | undefined) => Record<string, unknown>,
  headers: Record<string, string>,
  fetchFor: ((target: number) => typeof fetch) | undefined,
): StreamChatOptions {
  const targets = upstreams.map((u, target): StreamChatOptions => ({
    baseURL: u.baseURL,
    protocol: u.protocol,
    headers: headersFor(headers, u.protocol),
    body: bodyFor(u.protocol, u.model),
    ...(fetchFor !== undefined ? { fetch: fetchFor(target) } : {}),
    // Always set, even to none: keys were settled in configured order (upstreams.ts), and the
    // client must not hand the first target's key on to a keyless one.
    apiKey: u.apiKey as string,
  }));
  const [primary, ...rest] = targets as [StreamChatOptions, ...StreamChatOptions[]];
  if (rest.length === 0) return primary;
  // Fallback bodies are merged over the primary's; keys the primary's protocol uses but this
  // one does not (`system`, `input`, …) are masked with `undefined`, which JSON drops.
  const mask = Object.fromEntries(Object.keys(primary.body).map((key) => [key, undefined]));
  const fallbacks = rest.map((t) => ({ ...t, body: { ...mask, ...t.body } }));
  return { ...primary, fallbacks };
}

export function answerTooLarge(maxBytes: number): RelayFailure {
  return {
    status: 502,
    message: `The upstream's answer passed this relay's limit of ${maxBytes} bytes for an ` +
      "answer it holds whole (stream: false), so it was stopped; stream it, or ask for less.",
    type: "relay_limit",
    code: "answer_too_large",
  };
}

function headersFor(
  headers: Record<string, string>,
  protocol: ProtocolName,
): Record<string, string> {
  let out = headers;
  for (const [name, protocols] of Object.entries(BETA_HEADERS)) {
    if (out[name] === undefined || protocols.includes(protocol)) continue;
    const { [name]: _dropped, ...rest } = out;
    out = rest;
  }
  return out;
}
