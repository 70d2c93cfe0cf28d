// The slice of the Workers runtime modules the relay's workerd tests use. The full types
// (@cloudflare/workers-types or `wrangler types`) are not installed in this repository.
declare module "cloudflare:workers" {
  /** The main Worker's exports, callable from tests running in the same isolate. */
  export const exports: {
    default: {
      fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
    };
  };
  /** The bindings of wrangler.toml. */
  export const env: {
    /** The shared cooldowns' namespace (class RelayHealth). */
    HEALTH: {
      idFromName(name: string): DurableObjectIdLike;
      get(id: DurableObjectIdLike): DurableObjectStubLike;
    };
    /** The per-key limits' namespace (class RelayLimits). */
    LIMITS: {
      idFromName(name: string): DurableObjectIdLike;
      get(id: DurableObjectIdLike): DurableObjectStubLike;
    };
    /** The resumable streams' Durable Object namespace (class RelayStream). */
    STREAMS: {
      idFromName(name: string): DurableObjectIdLike;
      get(id: DurableObjectIdLike): DurableObjectStubLike;
    };
  };
  /** A Durable Object id. */
  export interface DurableObjectIdLike {
    toString(): string;
  }
  /** A Durable Object stub. */
  export interface DurableObjectStubLike {
    readonly id: DurableObjectIdLike;
    fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
  }
}

// vitest-pool-workers' helpers for Durable Objects defined by the main Worker.
declare module "cloudflare:test" {
  import type { DurableObjectIdLike, DurableObjectStubLike } from "cloudflare:workers";
  import type { RelayStream, RelayStreamState } from "../../src/relay/index.ts";
  /** The object's state, as far as the tests look at it. */
  type State = RelayStreamState & {
    storage: RelayStreamState["storage"] & { getAlarm(): Promise<number | null> };
  };
  /** Runs `callback` inside the object's own context, with its instance and state. */
  export function runInDurableObject<R>(
    stub: DurableObjectStubLike,
    callback: (instance: RelayStream, state: State) => R | Promise<R>,
  ): Promise<R>;
  /** The ids of every object of `namespace` created so far (storage is per test file). */
  export function listDurableObjectIds(namespace: {
    get(id: DurableObjectIdLike): DurableObjectStubLike;
  }): Promise<DurableObjectIdLike[]>;
  /** Runs the object's alarm now if one is set (and removes it); `true` if one ran. */
  export function runDurableObjectAlarm(stub: DurableObjectStubLike): Promise<boolean>;
}
