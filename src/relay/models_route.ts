// `GET /v1/models`: each upstream's configured `model`, or for one without, its own list (asked
// on each request: the relay keeps no state for this).

import type { Context } from "hono";
import { joinURL } from "../protocols/request.ts";
import { PROTOCOLS } from "../protocols/registry.ts";
import { errorResponse } from "./error_response.ts";
import type { ResolvedRelayOptions } from "./options.ts";
import type { ResolvedUpstream } from "./upstreams.ts";

/** How long an upstream's list may take; a model picker waits on it. */
const LIST_TIMEOUT_MS = 10_000;
/** Anthropic pages its list (20 by default); one page of its largest size is every model. */
const ANTHROPIC_PAGE = "?limit=1000";

export function modelsRoute(config: ResolvedRelayOptions): (c: Context) => Promise<Response> {
  const asked = config.models === undefined
    ? config.upstreams.filter((upstream) => upstream.model === undefined)
    : [];
  return async (c) => {
    const lists = await Promise.all(
      asked.map((upstream) => listOf(upstream, config, c.req.raw.signal)),
    );
    const ids = new Set(config.models ?? []);
    let failed = 0;
    let next = 0;
    for (const upstream of config.models === undefined ? config.upstreams : []) {
      if (upstream.model !== undefined) ids.add(upstream.model);
      else {
        const list = lists[next++];
        if (list === undefined) failed++;
        else for (const id of list) ids.add(id);
      }
    }
    if (ids.size === 0 && failed > 0) {
      return errorResponse({
        status: 502,
        message: "The relay could not list its upstream's models (see the relay's log); name " +
          "them in its `models` option, or give each upstream a `model`.",
        type: "upstream_error",
        code: "models_unavailable",
      });
    }
    const data = [...ids].map((id) => ({
      id,
      object: "model",
      created: 0,
      owned_by: "stopstream",
    }));
    return c.json({ object: "list", data });
  };
}

/** The ids `upstream` lists at `GET {baseURL}/models`, or `undefined` (logged) if it fails. */
async function listOf(
  upstream: ResolvedUpstream,
  config: ResolvedRelayOptions,
  caller: AbortSignal,
): Promise<string[] | undefined> {
  const { protocol, baseURL, apiKey } = upstream;
  // The protocol's own authentication headers (a bearer token, or Anthropic's x-api-key).
  const { headers } = PROTOCOLS[protocol].buildRequest({
    baseURL,
    apiKey,
    headers: new Headers(),
    body: {},
  });
  headers.delete("content-type");
  headers.set("accept", "application/json");
  const url = joinURL(baseURL, `/models${protocol === "anthropic-messages" ? ANTHROPIC_PAGE : ""}`);
  // A redirect is a failure: the key must not follow it anywhere.
  const init: RequestInit = {
    headers,
    redirect: "manual",
    signal: AbortSignal.any([caller, AbortSignal.timeout(LIST_TIMEOUT_MS)]),
  };
  let why: string;
  try {
    const response = config.fetch === undefined
      ? await fetch(url, init)
      : await config.fetch(url, init, { attempt: 1 });
    if (response.status === 200) {
      const ids = idsOf(await response.json());
      if (ids !== undefined) return ids;
      why = "its answer is not a list of models";
    } else {
      await response.body?.cancel();
      why = `it answered ${response.status}`;
    }
  } catch (error) {
    why = error instanceof Error ? error.name : "it failed";
  }
  // Never the URL or the answer: either may carry a key or an internal host.
  console.warn(`stopstream relay: GET /v1/models: an upstream's own list failed: ${why}`);
  return undefined;
}

/** OpenAI's `{ data: [{ id }] }`, which Anthropic's list shares. */
function idsOf(body: unknown): string[] | undefined {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return undefined;
  const ids: string[] = [];
  for (const entry of data) {
    const id = (entry as { id?: unknown } | null)?.id;
    if (typeof id === "string" && id !== "") ids.push(id);
  }
  return ids;
}
