// Who is calling, worked out once per request for everything that tells callers apart: one hash
// of the key serves the cooldowns, the retry shares, `LIMITS`, `HEALTH` and the call log.

import { bearerKey, callerAuthorization, sha256, toHex } from "./auth.ts";
import { KEY_ID_BYTES, keyDigest } from "./call_log.ts";
import type { CallerId } from "./cooldown.ts";

/** 64 bits of the key's hash: enough to tell keys apart, and the key itself is never kept. */
const ID_BYTES = 8;
/** 128 bits for a Durable Object's name. */
const HASH_BYTES = 16;
const LOOPBACK = /^(?:127\.|::1$|::ffff:127\.)/;

export interface Caller {
  /** For the cooldowns and the retry shares: `undefined` when callers cannot be told apart. */
  id: CallerId;
  /** Names the caller's `LIMITS` object; without keys, one address (or none) is one caller. */
  hash: string;
  /** The call log's key id; `null` when the relay takes no keys. */
  keyId: string | null;
}

/**
 * By relay key, else by `cf-connecting-ip` or the first `x-forwarded-for` entry; none, or a
 * loopback address (every local caller has it), leaves `id` `undefined`.
 */
export async function identify(request: Request, keyed: boolean, hashed = true): Promise<Caller> {
  const headers = request.headers;
  const key = keyed ? bearerKey(callerAuthorization(headers)) : undefined;
  if (key !== undefined) {
    const digest = await keyDigest(key);
    return {
      id: `key:${toHex(digest.subarray(0, ID_BYTES))}`,
      hash: toHex(digest.subarray(0, HASH_BYTES)),
      keyId: toHex(digest.subarray(0, KEY_ID_BYTES)),
    };
  }
  const address = (headers.get("cf-connecting-ip") ?? headers.get("x-forwarded-for")?.split(",")[0])
    ?.trim() ?? "";
  const hash = hashed
    ? toHex((await sha256(`stopstream-caller:ip:${address}`)).subarray(0, HASH_BYTES))
    : "";
  const id = address && !LOOPBACK.test(address) ? `ip:${address}` : undefined;
  return { id, hash, keyId: null };
}
