// The Durable Object behind `LIMITS`, one per caller (a hash of its key): its requests of the last
// minute and its calls in flight, each a lease that lapses unless renewed (an isolate may crash).

const MINUTE_MS = 60_000;

/** `POST /acquire`: the limits to apply (0: none) and how long a slot's lease lasts. */
export interface AcquireRequest {
  rpm: number;
  concurrency: number;
  leaseMs: number;
}

/** The answer: a lease to renew and release (`null` without a concurrency limit), or a refusal. */
export type AcquireAnswer =
  | { lease: string | null }
  | { refused: "rpm" | "concurrency"; retryAfterS: number };

/**
 * The Durable Object class of the `LIMITS` binding (SQLite-backed; counts in memory, so an
 * evicted object starts afresh). Export it from your Worker's entry.
 *
 * @example
 * ```ts
 * export { RelayLimits } from "stopstream/hono";
 * ```
 */
export class RelayLimits {
  /** When each request of the last minute came, oldest first. */
  #requests: number[] = [];
  /** Lease id → when it lapses. */
  #leases = new Map<string, number>();

  /** Called by the runtime; neither the state nor `env` is used. */
  constructor(_ctx?: unknown, _env?: unknown) {}

  /** `POST /acquire`, `/renew` (`{lease, leaseMs}`), `/release` (`{lease}`). */
  async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    let body: Record<string, unknown>;
    try {
      body = await request.json() as Record<string, unknown>;
    } catch {
      return new Response("expected a JSON body", { status: 400 });
    }
    const now = Date.now();
    if (pathname === "/acquire" && isAcquire(body)) return Response.json(this.#acquire(body, now));
    if (typeof body.lease !== "string") return new Response("unknown request", { status: 400 });
    if (pathname === "/renew" && isCount(body.leaseMs, 1)) {
      const held = (this.#leases.get(body.lease) ?? 0) > now;
      if (held) this.#leases.set(body.lease, now + body.leaseMs);
      return Response.json({ held });
    }
    if (pathname === "/release") {
      this.#leases.delete(body.lease);
      return Response.json({ released: true });
    }
    return new Response("unknown request", { status: 400 });
  }

  /** Slots in flight now (lapsed leases dropped). */
  inFlight(now: number = Date.now()): number {
    for (const [lease, lapses] of this.#leases) if (lapses <= now) this.#leases.delete(lease);
    return this.#leases.size;
  }

  #acquire({ rpm, concurrency, leaseMs }: AcquireRequest, now: number): AcquireAnswer {
    // The slot first: a request refused for it must not use up one of the minute's requests.
    if (concurrency > 0 && this.inFlight(now) >= concurrency) {
      return { refused: "concurrency", retryAfterS: 1 };
    }
    const requests = this.#requests;
    if (rpm > 0) {
      let stale = 0;
      while (stale < requests.length && requests[stale]! <= now - MINUTE_MS) stale++;
      if (stale > 0) requests.splice(0, stale);
      if (requests.length >= rpm) {
        // Free again when the oldest request that still counts is a minute old.
        const waitMs = requests[requests.length - rpm]! + MINUTE_MS - now;
        return { refused: "rpm", retryAfterS: Math.max(1, Math.ceil(waitMs / 1000)) };
      }
      requests.push(now);
    }
    if (concurrency === 0) return { lease: null };
    const lease = crypto.randomUUID();
    this.#leases.set(lease, now + leaseMs);
    return { lease };
  }
}

function isCount(value: unknown, min: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min;
}

function isAcquire(
  body: Record<string, unknown>,
): body is Record<string, unknown> & AcquireRequest {
  return isCount(body.rpm, 0) && isCount(body.concurrency, 0) && isCount(body.leaseMs, 1);
}
