/**
 * Two instances of the relay Worker as `npm start` serves it (scripts/start.mjs: the bundle
 * `wrangler deploy` would upload, wrangler.toml's bindings, workerd through Miniflare), each a
 * Worker of its own (its own isolate), on its own loopback port. The second binds the first's
 * Durable Objects by `scriptName`, as a second Worker of one account would: both use one
 * `HEALTH` object. Offline, in one workerd process.
 *
 * @module
 */

import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Log, LogLevel, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { buildWorker, QUIET_ENV } from "../../scripts/start.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIRST = "stopstream-relay";
const SECOND = "stopstream-relay-b";

/**
 * Two running relays.
 *
 * @example
 * ```ts
 * const pair = await startRelayPair({ UPSTREAM_BASE_URL: "http://127.0.0.1:9/v1" });
 * await fetch(`${pair.urls[1]}/healthz`);
 * await pair.stop();
 * ```
 */
export interface RelayPair {
  /** The two instances' `http://127.0.0.1:<port>`. */
  urls: [string, string];
  stop(): Promise<void>;
}

/** Serves two instances with `vars` over wrangler.toml's bindings. */
export async function startRelayPair(vars: Record<string, string>): Promise<RelayPair> {
  Object.assign(process.env, QUIET_ENV);
  mkdirSync(`${ROOT}.wrangler/tmp`, { recursive: true });
  const outdir = mkdtempSync(`${ROOT}.wrangler/tmp/pair-`);
  try {
    const scriptPath = await buildWorker(outdir);
    // No developer's .dev.vars (start.mjs's --env-file; wrangler's types omit the option).
    const readVars: Record<string, unknown> = { envFiles: [`${ROOT}test/e2e/empty.env`] };
    const { workerOptions } = unstable_getMiniflareWorkerOptions(
      `${ROOT}wrangler.toml`,
      undefined,
      readVars,
    );
    const worker = {
      ...workerOptions,
      bindings: { ...workerOptions.bindings, ...vars },
      modules: true,
      scriptPath,
      modulesRoot: outdir,
      unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
    };
    // The first instance's classes, by name: the objects live there.
    const shared = {
      STREAMS: { className: "RelayStream", scriptName: FIRST },
      HEALTH: { className: "RelayHealth", scriptName: FIRST },
      LIMITS: { className: "RelayLimits", scriptName: FIRST },
    };
    const miniflare = new Miniflare({
      host: "127.0.0.1",
      port: 0,
      cf: false,
      log: new Log(LogLevel.WARN),
      workers: [
        { ...worker, name: FIRST },
        { ...worker, name: SECOND, durableObjects: shared },
      ],
    });
    await miniflare.ready;
    const urls: [string, string] = [
      (await miniflare.unsafeGetDirectURL(FIRST)).href.replace(/\/$/, ""),
      (await miniflare.unsafeGetDirectURL(SECOND)).href.replace(/\/$/, ""),
    ];
    let stopped: Promise<void> | undefined;
    const stop = (): Promise<void> =>
      stopped ??= miniflare.dispose().finally(() =>
        rmSync(outdir, { recursive: true, force: true })
      );
    return { urls, stop };
  } catch (error) {
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  }
}
