/**
 * What the relay's small Durable Objects (`HEALTH`, `LIMITS`) share with the Worker side: the
 * namespace slice the relay calls, how a caller is named without its key, and `waitUntil`.
 */

import type { Context } from "hono";
import { bearerKey, callerAuthorization, sha256, toHex } from "./auth.ts";

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

export function stubOf(
  namespace: RelayNamespace,
  name: string,
): { fetch(request: Request): Promise<Response> } {
  return namespace.get(namespace.idFromName(name));
}

/**
 * Who is calling, as a hash: the relay key when the relay takes keys, else the client's address.
 * Never the key itself, so a Durable Object (and its storage) cannot leak one.
 */
export async function callerHash(request: Request, keys: readonly string[]): Promise<string> {
  const who = keys.length > 0
    ? `key:${bearerKey(callerAuthorization(request.headers)) ?? ""}`
    : `ip:${request.headers.get("cf-connecting-ip") ?? ""}`;
  return toHex(await sha256(`stopstream-caller:${who}`)).slice(0, 32);
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
