import type { MiddlewareHandler } from "hono";
import { errorBody, errorResponse, invalidRequest, type RelayFailure } from "./error_response.ts";

const encoder = new TextEncoder();

/**
 * A 401 unless the request carries one of `keys` (none: every request passes), as
 * `Authorization: Bearer <key>` or, as Anthropic's SDKs send it, `x-api-key: <key>`. `shape`
 * is the error body of the protocol the route speaks: each route checks the key itself.
 */
export function requireKey(
  keys: readonly string[],
  shape: (failure: RelayFailure) => unknown = errorBody,
): MiddlewareHandler {
  const isAuthorized = createKeyCheck(keys);
  return async (c, next) => {
    if (await isAuthorized(callerAuthorization(c.req.raw.headers))) return next();
    const message = "Missing or invalid relay key; send `Authorization: Bearer <key>` or " +
      "`x-api-key: <key>`.";
    const failure = invalidRequest(401, message, "invalid_api_key");
    return errorResponse(failure, { "www-authenticate": "Bearer" }, shape);
  };
}

/** The caller's key as an `Authorization` value: its bearer token, else its `x-api-key`. */
export function callerAuthorization(headers: Headers): string | undefined {
  const authorization = headers.get("authorization");
  if (authorization !== null) return authorization;
  const key = headers.get("x-api-key");
  return key === null ? undefined : `Bearer ${key}`;
}

/**
 * Both sides are hashed so that every comparison runs over 32 bytes whatever the key lengths,
 * and every accepted key is compared: the time tells nothing of the keys.
 */
export function createKeyCheck(
  keys: readonly string[],
): (authorization: string | null | undefined) => Promise<boolean> {
  const accepted = [...keys];
  let digests: Promise<Uint8Array[]> | undefined;
  return async (authorization) => {
    if (accepted.length === 0) return true;
    const key = bearerKey(authorization);
    if (key === undefined) return false;
    const given = await sha256(key);
    digests ??= Promise.all(accepted.map(sha256));
    return matchesAny(given, await digests);
  };
}

/** Compares every one in full: the time tells neither which key matched nor how far. */
export function matchesAny(digest: Uint8Array, accepted: readonly Uint8Array[]): boolean {
  let found = 0;
  for (const candidate of accepted) found |= sameBytes(digest, candidate) ? 1 : 0;
  return found === 1;
}

export function bearerKey(authorization: string | null | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
}

export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

export function toHex(bytes: Uint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/** No early exit: the time does not tell where `a` and `b` differ. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

/** {@linkcode sameBytes} for key hashes as text (a resumable stream's owner, hex). */
export function sameHash(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
