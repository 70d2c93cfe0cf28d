/**
 * Redirects, followed by hand. `fetch` would follow them itself, but on a redirect to another
 * origin it strips only `Authorization`: an Anthropic key in `x-api-key` went along. And a
 * redirect loop ended in a network error, which was retried. So requests go out with
 * `redirect: "manual"` and only same-origin redirects are followed.
 *
 * @module
 */

import { RedirectError } from "./errors.ts";

/** Most redirects followed for one request. */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
const noop = (): void => {};

/**
 * `fetchFn(url, init)`, following same-origin redirects (up to 5) with the same method, headers
 * and body. A redirect to another origin, a loop, a sixth redirect or a browser's opaque
 * redirect rejects with a {@linkcode RedirectError}; a 3xx without a usable `Location` is
 * returned as it is.
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
    const { status } = response;
    if (target.origin !== new URL(current).origin) {
      throw new RedirectError("cross-origin", status, target.origin);
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
