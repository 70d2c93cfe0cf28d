import type { RelayFetch } from "./options.ts";
import { type PieceTap, readInPieces } from "./upstream_body.ts";

/** An allowlist: the caller's credentials and hop-by-hop headers must not reach an upstream. */
const FORWARDED_HEADERS: readonly string[] = ["anthropic-beta", "openai-beta"];

export function forwardedHeaders(
  headers: Headers,
  also: readonly string[],
): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of [...FORWARDED_HEADERS, ...also]) {
    const value = headers.get(name);
    if (value !== null) forwarded[name.toLowerCase()] = value;
  }
  return forwarded;
}

export interface UpstreamFetch {
  fetch: typeof fetch;
  readonly calls: number;
  readonly tap: PieceTap;
}

export function createUpstreamFetch(base: RelayFetch | undefined): UpstreamFetch {
  const tap: PieceTap = { seq: 0, bytes: undefined, coalesce: false, reads: 0 };
  const state = {
    calls: 0,
    tap,
    fetch: (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      const attempt = ++state.calls;
      const sent = base === undefined
        ? globalThis.fetch(input, init)
        : base(input, init, { attempt });
      return sent.then((response) => readInPieces(response, tap));
    },
  };
  return state;
}
