// What a contender's `consume(ctx)` receives.

import { REQUEST_BODY } from "./streams.mjs";

/** The endpoint a workload's protocol posts to, under `baseURL`. */
export function endpoint(baseURL, workload) {
  return baseURL + (workload === "anthropic" ? "/messages" : "/chat/completions");
}

/** Builds a consume context. */
export function context(workload, baseURL, fetchImpl, extra = {}) {
  return {
    workload,
    baseURL,
    url: endpoint(baseURL, workload),
    body: REQUEST_BODY,
    fetch: fetchImpl,
    signal: undefined,
    onText: null,
    ...extra,
  };
}
