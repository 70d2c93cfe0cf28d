// The slice of the Workers runtime module the relay's workerd tests use. The full types
// (@cloudflare/workers-types or `wrangler types`) are not installed in this repository.
declare module "cloudflare:workers" {
  /** The main Worker's exports, callable from tests running in the same isolate. */
  export const exports: {
    default: {
      fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
    };
  };
}
