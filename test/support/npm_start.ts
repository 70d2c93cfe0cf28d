/**
 * The relay as `npm start` runs it (`scripts/start.mjs`: wrangler's bundle, one workerd through
 * Miniflare, the Durable Objects of wrangler.toml), in a child process on a free loopback port,
 * with no `.dev.vars` (the built-in demo model). Its output stays in the child unless it fails.
 *
 * @module
 */

import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { spawnTracked, stopTracked } from "../../scripts/process_groups.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const READY = /stopstream relay: playground at (http:\/\/127\.0\.0\.1:\d+)\//;

/**
 * A running relay.
 *
 * @example
 * ```ts
 * const relay = await startRelay();
 * await fetch(`${relay.url}/healthz`);
 * await relay.stop();
 * ```
 */
export interface StartedRelay {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Everything it printed so far (for failure messages). */
  output(): string;
  /**
   * Resolves with the output once `test` holds of it (checked as each piece arrives); rejects
   * after `timeoutMs` with what it printed.
   */
  waitForOutput(test: (output: string) => boolean, timeoutMs: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts `node scripts/start.mjs --port 0` and resolves once it printed its URL; `vars` are
 * bindings, as `--var NAME:value` sets them.
 */
export async function startRelay(
  timeoutMs = 60_000,
  vars: Record<string, string> = {},
): Promise<StartedRelay> {
  const args = ["scripts/start.mjs", "--port", "0", "--env-file", "test/e2e/empty.env"];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child: ChildProcess = spawnTracked(process.execPath, args, {
    cwd: ROOT,
    // Its own process group: stop() reaches workerd too (and, tracked, it goes when the test
    // worker goes: vitest ends a worker with SIGTERM on a timeout or an interrupt).
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => (output += text));
  child.stderr?.setEncoding("utf8").on("data", (text: string) => (output += text));
  const exited = once(child, "exit");
  const stop = (): Promise<void> => stopTracked(child, { signal: "SIGINT" });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`npm start did not print its URL within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (): void => {
      const match = READY.exec(output);
      if (match === null) return;
      clearTimeout(timer);
      resolve(match[1] as string);
    };
    child.stdout?.on("data", onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`npm start exited early:\n${output}`));
    });
  });
  const waitForOutput = (test: (output: string) => boolean, timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const check = (): void => {
        if (!test(output)) return;
        settle();
        resolve(output);
      };
      const timer = setTimeout(() => {
        settle();
        reject(
          new Error(`npm start did not print what was awaited in ${timeoutMs} ms:\n${output}`),
        );
      }, timeoutMs);
      const settle = (): void => {
        clearTimeout(timer);
        child.stdout?.off("data", check);
        child.stderr?.off("data", check);
      };
      // After the listeners that append the piece: `check` sees it.
      child.stdout?.on("data", check);
      child.stderr?.on("data", check);
      check();
    });
  return { url, output: () => output, waitForOutput, stop };
}
