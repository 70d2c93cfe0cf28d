// Types of start.mjs, for the TypeScript tests that serve the Worker as `npm start` does.

/** Wrangler and Miniflare with nothing sent off the machine (no banner, metrics, `cf` fetch). */
export declare const QUIET_ENV: Record<string, string>;

/** Bundles the Worker of wrangler.toml into `outdir` as `wrangler deploy` would; the main module. */
export declare function buildWorker(outdir: string): Promise<string>;
