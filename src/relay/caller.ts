/**
 * Who is calling, for the cooldowns and the retry budget's shares: one caller's requests must
 * neither cool an upstream down for the others nor spend their retries.
 */

import { bearerKey, callerAuthorization, sha256, toHex } from "./auth.ts";
import type { CallerId } from "./cooldown.ts";

/** 64 bits of the key's hash: enough to tell keys apart, and the key itself is never kept. */
const ID_BYTES = 8;
const LOOPBACK = /^(?:127\.|::1$|::ffff:127\.)/;

/**
 * By relay key when the relay takes keys, else by client address: Cloudflare's
 * `cf-connecting-ip`, else the first `x-forwarded-for` entry (set by a proxy in front). Without
 * either, or from a loopback address (`npm start`, `wrangler dev`: every local caller has it), the
 * relay cannot tell callers apart: `undefined`.
 */
export async function callerOf(request: Request, keyed: boolean): Promise<CallerId> {
  const headers = request.headers;
  if (keyed) {
    const key = bearerKey(callerAuthorization(headers));
    if (key !== undefined) {
      return `key:${toHex((await sha256(`caller:${key}`)).subarray(0, ID_BYTES))}`;
    }
  }
  const address = headers.get("cf-connecting-ip") ?? headers.get("x-forwarded-for")?.split(",")[0];
  const trimmed = address?.trim();
  return trimmed && !LOOPBACK.test(trimmed) ? `ip:${trimmed}` : undefined;
}
