/**
 * Redirects, followed by hand. `fetch` would follow them itself, but on a redirect to another
 * origin it strips only `Authorization`: an Anthropic key in `x-api-key` went along. And a
 * redirect loop ended in a network error, which was retried. So requests go out with
 * `redirect: "manual"` and only same-origin redirects are followed. Whatever is not followed is
 * a `RedirectError`, which is never retried: the same request would be redirected the same way.
 *
 * @module
 */

import { noop } from "./call_control.ts";
import { RedirectError } from "./error_classes.ts";

/** Most redirects followed for one request. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);

/**
 * `fetchFn(url, init)`, following same-origin redirects (up to 5) with the same method, headers
 * and body. A redirect to another origin or to a URL with credentials in it, a loop, a sixth
 * redirect, a 303 See Other on anything but a `GET`, or a browser's opaque redirect rejects with
 * a {@linkcode RedirectError}; a 3xx without a usable `Location` is returned as it is.
 *
 * @example
 * ```ts
 * const response = await fetchFollowing(fetch, url, { method: "POST", headers, body, signal });
 * ```
 */
export async function fetchFollowing(
  fetchFn: typeof fetch,
  url: string,
  init: RequestInit,
): Promise<Response> {
  const manual: RequestInit = { ...init, redirect: "manual" };
  const visited = [url];
  let current = url;
  for (;;) {
    const response = await fetchFn(current, manual);
    if (response.type === "opaqueredirect") throw new RedirectError("opaque", 0, undefined);
    const location = REDIRECT_STATUS.has(response.status) ? response.headers.get("location") : null;
    const target = location === null ? undefined : parse(location, current);
    if (target === undefined) return response;
    response.body?.cancel().catch(noop);
    // A stop that came while this hop was on its way: no next one (an injected fetch may not
    // honour its signal).
    init.signal?.throwIfAborted();
    const { status } = response;
    if (target.origin !== new URL(current).origin) {
      throw new RedirectError("cross-origin", status, target.origin);
    }
    // `user:pw@` passes the origin check, but fetch refuses such a URL with a TypeError, which
    // would pass for a lost connection and be retried.
    if (target.username !== "" || target.password !== "") {
      throw new RedirectError("credentials", status, target.origin);
    }
    // A 303 means "GET the answer over there" (fetch would switch to GET and drop the body):
    // never what a POST to an LLM API wants, and re-sending the POST is not what it asks.
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
