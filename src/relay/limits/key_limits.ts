// The Worker side of per-key limits: one request to the caller's `LIMITS` object before a call,
// a lease renewed while it runs, released (`waitUntil`) when it ends.

import { noop } from "../../core/constants.ts";
import type { RelayFailure } from "../error_response.ts";
import { postJSON, type RelayNamespace, type Stub, stubOf } from "../durable.ts";
import type { AcquireAnswer, AcquireRequest } from "./relay_limits.ts";

/** A slot's lease lasts this long unless renewed; a crashed isolate's slot is free after it. */
const LEASE_MS = 60_000;
/** Renewed this often while the call runs: two renewals may fail before it lapses. */
const RENEW_MS = LEASE_MS / 3;
const LIMITS_URL = "https://relay-limits";

/** Requests per minute and calls in flight per caller; 0: no limit. */
type KeyLimitSettings = Omit<AcquireRequest, "leaseMs">;

/** A caller's slot while its call runs. */
export class Lease {
  #stub: Stub;
  #id: string;
  #renew: ReturnType<typeof setInterval>;
  #released: Promise<void> | undefined;

  constructor(stub: Stub, id: string) {
    this.#stub = stub;
    this.#id = id;
    this.#renew = setInterval(() => {
      postJSON(stub, `${LIMITS_URL}/renew`, { lease: id, leaseMs: LEASE_MS }).catch(noop);
    }, RENEW_MS);
  }

  /** Once: the slot is free for the caller's next call. */
  release(): Promise<void> {
    clearInterval(this.#renew);
    return this.#released ??= postJSON(this.#stub, `${LIMITS_URL}/release`, { lease: this.#id })
      .then(noop, noop);
  }
}

export class KeyLimits {
  #namespace: RelayNamespace;
  #settings: KeyLimitSettings;

  constructor(namespace: RelayNamespace, settings: KeyLimitSettings) {
    this.#namespace = namespace;
    this.#settings = settings;
  }

  /** A 429, a lease, or `undefined`; an unreachable object lets the call through. */
  async acquire(caller: string): Promise<RelayFailure | Lease | undefined> {
    const stub = stubOf(this.#namespace, `limits:${caller}`);
    const body: AcquireRequest = { ...this.#settings, leaseMs: LEASE_MS };
    let answer: AcquireAnswer;
    try {
      const response = await postJSON(stub, `${LIMITS_URL}/acquire`, body);
      if (!response.ok) return undefined;
      answer = await response.json() as AcquireAnswer;
    } catch {
      return undefined;
    }
    if ("refused" in answer) return refusal(answer, this.#settings);
    return answer.lease === null ? undefined : new Lease(stub, answer.lease);
  }
}

function refusal(
  answer: Extract<AcquireAnswer, { refused: string }>,
  settings: KeyLimitSettings,
): RelayFailure {
  const rpm = answer.refused === "rpm";
  return {
    status: 429,
    message: rpm
      ? `Rate limit reached: this key may send ${settings.rpm} requests per minute; ` +
        `try again in ${answer.retryAfterS} s.`
      : `Too many calls at once: this key may have ${settings.concurrency} in flight; ` +
        "try again once one has ended.",
    type: "rate_limit_error",
    code: rpm ? "rate_limit_exceeded" : "too_many_concurrent_requests",
    headers: { "retry-after": String(answer.retryAfterS) },
  };
}
