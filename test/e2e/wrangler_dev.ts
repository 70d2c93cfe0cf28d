/**
 * Start the relay Worker with `wrangler dev` as a child process on free loopback ports, wait
 * until it answers, and stop it (and its workerd) cleanly. Shared by the e2e and browser tests.
 *
 * @module
 */

import { type ChildProcess, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { spawnTracked, stopTracked } from "../../scripts/process_groups.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WRANGLER = `${ROOT}node_modules/.bin/wrangler`;

let prebuilt = false;
/**
 * Runs the Worker's `[build]` step once, before any instance starts: the step then finds its
 * output (in .wrangler/generated/) up to date and writes nothing, so instances starting together
 * on a fresh clone never each write it.
 */
function prebuildOnce(): void {
  if (prebuilt) return;
  const build = spawnSync(process.execPath, [`${ROOT}scripts/build-browser-client.mjs`], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (build.status !== 0) throw new Error(`browser client build failed:\n${build.stderr}`);
  prebuilt = true;
}

/**
 * A running `wrangler dev`.
 *
 * @example
 * ```ts
 * const relay = await startWranglerDev();
 * await fetch(`${relay.url}/healthz`);
 * await relay.stop();
 * ```
 */
export interface WranglerDev {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Everything wrangler printed so far (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

/** A port the OS just handed out on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

/**
 * Spawn `wrangler dev` with `vars` (as `--var NAME:value`) and resolve once `GET /healthz`
 * answers 200, polling; rejects with wrangler's output if it exits or is not ready in time.
 */
export async function startWranglerDev(
  vars: Record<string, string> = {},
  timeoutMs = 45_000,
): Promise<WranglerDev> {
  prebuildOnce();
  const [port, inspectorPort] = [await freePort(), await freePort()];
  const args = [
    "dev",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(inspectorPort),
    "--show-interactive-dev-session=false",
    // A developer's own .dev.vars must not point the tests at a real provider.
    "--env-file",
    `${ROOT}test/e2e/empty.env`,
    // Its own state directory: two instances sharing .wrangler/state lock each other's SQLite
    // ("database is locked", seen on a fresh clone where both start at once).
    "--persist-to",
    `${ROOT}.tmp/wrangler-e2e-${port}`,
  ];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  let output = "";
  const child: ChildProcess = spawnTracked(WRANGLER, args, {
    cwd: ROOT,
    // Its own process group, so stop() reaches workerd too (and it goes when the test worker
    // goes).
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    // No `Request.cf` download from Cloudflare: tests stay on loopback.
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      NO_COLOR: "1",
      CI: "1",
    },
  });
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = (): Promise<void> => stopTracked(child, { graceMs: 5_000 });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${output}`);
    try {
      const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2_000) });
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev was not ready within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // poll interval, not a sync point
  }
  return { url, output: () => output, stop };
}
