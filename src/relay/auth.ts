/**
 * Client key checks for the relay, in constant time: the bearer key against the accepted
 * keys, and a resumable stream's owner hash against the caller's.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * A check of whether an `Authorization: Bearer <key>` header carries one of `keys`.
 *
 * Both sides are hashed first so the comparison always runs over 32 bytes whatever the key
 * lengths, and every accepted key is compared so the time does not tell which one matched.
 * The accepted keys are hashed once, on the first check, not on every request.
 *
 * @example
 * ```ts
 * const isAuthorized = createKeyCheck(["relay-key-1"]);
 * await isAuthorized("Bearer relay-key-1"); // true
 * ```
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

/**
 * Whether `digest` is one of `accepted`. Every one is compared, byte by byte, whichever
 * matches: the time does not tell which key matched, nor how far a wrong one matched.
 *
 * @example
 * ```ts
 * matchesAny(await sha256("relay-key-2"), [await sha256("relay-key-1"), await sha256("relay-key-2")]); // true
 * ```
 */
export function matchesAny(digest: Uint8Array, accepted: readonly Uint8Array[]): boolean {
  let found = 0;
  for (const candidate of accepted) found |= sameBytes(digest, candidate) ? 1 : 0;
  return found === 1;
}

/**
 * The key of an `Authorization: Bearer <key>` header, if it is one.
 *
 * @example
 * ```ts
 * bearerKey("Bearer relay-key-1"); // "relay-key-1"
 * ```
 */
export function bearerKey(authorization: string | null | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
}

/**
 * The SHA-256 digest of `text` (UTF-8).
 *
 * @example
 * ```ts
 * const digest = await sha256("relay-key-1"); // 32 bytes
 * ```
 */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/**
 * Whether `a` and `b` hold the same bytes, in time independent of where they differ: every
 * byte of `a` is compared with `b`'s, with no early exit.
 *
 * @example
 * ```ts
 * sameBytes(await sha256("relay-key-1"), await sha256("relay-key-1")); // true
 * ```
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}

/**
 * Whether two key hashes as text (a resumable stream's owner, hex) are equal, in time
 * independent of where they differ: {@linkcode sameBytes} for UTF-16 code units.
 *
 * @example
 * ```ts
 * sameHash(stored.owner, request.headers.get(OWNER_HEADER) ?? ""); // true for its owner only
 * ```
 */
export function sameHash(a: string, b: string): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}
