// What the `HEALTH` and `LIMITS` Durable Objects share with the Worker side.

import type { Context } from "hono";

/**
 * A Durable Object namespace as the relay uses it (`HEALTH`, `LIMITS`): only the two methods it
 * calls are declared, so any real namespace fits.
 *
 * @example
 * ```ts
 * createRelay({ health: env.HEALTH as RelayNamespace });
 * ```
 */
export interface RelayNamespace {
  /** The id of the object for `name`. */
  idFromName(name: string): unknown;
  /** A stub for an id: `fetch` sends a request to the object. */
  get(id: unknown): { fetch(request: Request): Promise<Response> };
}

export function isRelayNamespace(value: unknown): value is RelayNamespace {
  const candidate = value as Partial<RelayNamespace> | null | undefined;
  return typeof candidate?.idFromName === "function" && typeof candidate.get === "function";
}

export type Stub = ReturnType<RelayNamespace["get"]>;

export function stubOf(namespace: RelayNamespace, name: string): Stub {
  return namespace.get(namespace.idFromName(name));
}

export function postJSON(stub: Stub, url: string, body: unknown): Promise<Response> {
  return stub.fetch(
    new Request(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
}

/** Keeps a Worker running for `promise` after its answer; outside Workers it runs anyway. */
export function keepRunning(c: Context, promise: Promise<unknown>): void {
  let ctx: { waitUntil(promise: Promise<unknown>): void } | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    // Hono throws when the runtime gave no execution context (Node, Deno, Bun).
  }
  ctx?.waitUntil(promise);
}
