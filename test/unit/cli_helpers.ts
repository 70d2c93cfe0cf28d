/**
 * Helpers for the CLI tests: build `dist/` when it is missing or older than `src/`, and spawn
 * `node bin/stopstream.mjs` as a real child process with its output recorded as it arrives.
 *
 * @module
 */

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL("../..", import.meta.url));
const MAIN_JS = join(ROOT, "dist/apps/cli/main.js");

/**
 * Run `tsc -p tsconfig.build.json` unless `dist/apps/cli/main.js` is newer than every file in
 * `src/`. Type errors elsewhere in `src/` do not stop the CLI tests (tsc still emits), but
 * one in `src/cli/` does.
 *
 * @example
 * ```ts
 * beforeAll(ensureBuilt, 60_000);
 * ```
 */
export async function ensureBuilt(): Promise<void> {
  const newest = newestSource();
  if (mtime(MAIN_JS) >= newest) return;
  const output = await new Promise<string>((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
      { cwd: ROOT },
      (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
    );
  });
  const cliErrors = output.split("\n").filter((line) => line.startsWith("src/apps/cli/"));
  if (cliErrors.length > 0) throw new Error(`the CLI does not compile:\n${cliErrors.join("\n")}`);
  if (mtime(MAIN_JS) < newest) {
    throw new Error(`the build did not emit dist/apps/cli/main.js:\n${output}`);
  }
}

function newestSource(): number {
  let newest = 0;
  const dir = join(ROOT, "src");
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    if (name.endsWith(".ts")) newest = Math.max(newest, mtime(join(dir, name)));
  }
  return newest;
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * How a CLI process ended.
 *
 * @example
 * ```ts
 * const { code, stdout } = await run.exited;
 * ```
 */
export interface CliExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** `performance.now()` when the process exited. */
  at: number;
}

/**
 * A running CLI process.
 *
 * @example
 * ```ts
 * const run = spawnCli(["chat", "--demo", "hi"]);
 * await run.waitFor("stdout", (text) => text.length > 0);
 * ```
 */
export interface CliRun {
  child: ChildProcess;
  /** Chunks received on stdout so far (more than one means the text streamed). */
  stdoutChunks(): number;
  /** Resolves with the stream's text once `test` holds; rejects if the process exits first. */
  waitFor(stream: "stdout" | "stderr", test: (text: string) => boolean): Promise<string>;
  exited: Promise<CliExit>;
}

/**
 * Spawn `node bin/stopstream.mjs …args` with pipes (so neither stdout nor stderr is a TTY) and a
 * clean environment: `PATH`, `OPENAI_API_KEY=test-key`, plus `env` (`undefined` removes).
 *
 * @example
 * ```ts
 * const run = spawnCli(["chat", "--model", "demo", "hi"], { env: { OPENAI_API_KEY: undefined } });
 * ```
 */
export function spawnCli(
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; input?: string } = {},
): CliRun {
  const env: Record<string, string> = {};
  const merged = { PATH: process.env.PATH, OPENAI_API_KEY: "test-key", ...options.env };
  for (const [name, value] of Object.entries(merged)) if (value !== undefined) env[name] = value;
  const child = spawn(process.execPath, [join(ROOT, "bin/stopstream.mjs"), ...args], {
    cwd: ROOT,
    env,
    stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  const text = { stdout: "", stderr: "" };
  let chunks = 0;
  const watchers = new Set<() => void>();
  const wake = (): void => {
    for (const watcher of [...watchers]) watcher();
  };
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    text.stdout += chunk;
    chunks++;
    wake();
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    text.stderr += chunk;
    wake();
  });
  let ended = false;
  const exited = new Promise<CliExit>((resolve) => {
    // "close", not "exit": both pipes are drained by then, so no output is missing.
    child.on("close", (code, signal) => {
      const at = performance.now();
      ended = true;
      wake();
      resolve({ code, signal, stdout: text.stdout, stderr: text.stderr, at });
    });
  });
  const waitFor = (stream: "stdout" | "stderr", test: (t: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const check = (): void => {
        if (test(text[stream])) {
          watchers.delete(check);
          resolve(text[stream]);
        } else if (ended) {
          watchers.delete(check);
          reject(new Error(`process exited first; stdout=${text.stdout} stderr=${text.stderr}`));
        }
      };
      watchers.add(check);
      check();
    });
  return { child, stdoutChunks: () => chunks, waitFor, exited };
}

/**
 * A loopback server in front of `handler` whose `flowing` resolves once `chunks` body chunks
 * have been handed to the socket: how a test knows an answer is under way when the CLI shows
 * nothing until the end (`--json`).
 *
 * @example
 * ```ts
 * const { server, flowing } = await startChunkCounter(faults.handler, 30);
 * ```
 */
export async function startChunkCounter(
  handler: (request: Request) => Promise<Response>,
  chunks: number,
): Promise<{ server: NodeServer; flowing: Promise<void> }> {
  let seen = 0;
  let isFlowing!: () => void;
  const flowing = new Promise<void>((resolve) => (isFlowing = resolve));
  const server = await startNodeServer(async (request) => {
    const response = await handler(request);
    if (response.body === null) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (++seen === chunks) isFlowing();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, response);
  });
  return { server, flowing };
}
