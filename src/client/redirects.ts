// Redirects are followed by hand (same origin only): on a cross-origin redirect `fetch` strips
// `Authorization` but keeps `x-api-key`, and a loop would surface as a retryable network error.

import { noop } from "../core/constants.ts";
import { RedirectError } from "../core/error_classes.ts";

const MAX_REDIRECTS = 5;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/** Same-origin hops (at most 5) keep method, headers, body; a 3xx without `Location` returns. */
export async function fetchFollowing(
  fetchFn: typeof fetch,
  url: string,
  init: RequestInit,
): Promise<Response> {
  const manual: RequestInit = { ...init, redirect: "manual" };
  const visited = [url];
  let current = url;
  for (;;) {
    const response = await fetchFn(current, manual); // unbound: browsers reject a foreign `this`
    if (response.type === "opaqueredirect") throw new RedirectError("opaque", 0, undefined);
    const location = REDIRECT_STATUS.has(response.status) ? response.headers.get("location") : null;
    const target = location === null ? undefined : parse(location, current);
    if (target === undefined) return response;
    response.body?.cancel().catch(noop);
    // An injected fetch may not honour its signal: no further hop after a stop.
    init.signal?.throwIfAborted();
    const { status } = response;
    if (target.origin !== new URL(current).origin) {
      throw new RedirectError("cross-origin", status, target.origin);
    }
    // `user:pw@` passes the origin check, but fetch's TypeError for it would be retried.
    if (target.username !== "" || target.password !== "") {
      throw new RedirectError("credentials", status, target.origin);
    }
    // A 303 asks for a GET of another resource: never what a POST to an LLM API wants.
    if (status === 303 && init.method !== "GET") {
      throw new RedirectError("see-other", status, target.origin);
    }
    if (visited.includes(target.href)) throw new RedirectError("loop", status, target.origin);
    if (visited.length > MAX_REDIRECTS) throw new RedirectError("too-many", status, target.origin);
    visited.push(target.href);
    current = target.href;
  }
}

function parse(location: string, base: string): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}
