/**
 * Running examples as their own processes: Node and Deno programs, and shell commands. Each
 * runs with a time limit; one that outlives it is killed with its whole process group and
 * fails as hung.
 *
 * @module
 */

import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { bundleForNode, ROOT } from "./bundle.ts";
import type { StatedCommand } from "./examples.ts";

/** How a process ended, with what it printed. */
export interface Finished {
  /** The exit status; `undefined` when killed by a signal. */
  code: number | undefined;
  signal: string | undefined;
  /** Killed by the harness for running longer than its limit. */
  hung: boolean;
  stdout: string;
  stderr: string;
}

/** Where the examples' generated files go (inside the repository, so deno.json applies). */
export const WORK_DIR = `${ROOT}.tmp/docs-examples/`;

/** Keys the examples read from the environment: any value works against the loopback upstream. */
export const EXAMPLE_KEYS: Record<string, string> = {
  OPENAI_API_KEY: "sk-example",
  ANTHROPIC_API_KEY: "sk-ant-example",
  DEEPSEEK_API_KEY: "sk-example",
  OPENROUTER_API_KEY: "sk-or-example",
};

/**
 * Runs a command in its own process group. `interruptOnOutput` sends SIGINT to the group
 * (what Ctrl-C in a terminal does) as soon as the command has printed something.
 */
export function runProcess(
  command: string,
  args: string[],
  options: { env: Record<string, string>; timeoutMs: number; interruptOnOutput?: boolean },
): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let hung = false;
    let interrupted = false;
    const signalGroup = (signal: NodeJS.Signals): void => {
      try {
        process.kill(-(child.pid as number), signal);
      } catch {
        // The group is gone already.
      }
    };
    const onOutput = (): void => {
      if (options.interruptOnOutput === true && !interrupted) {
        interrupted = true;
        signalGroup("SIGINT");
      }
    };
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      onOutput();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      onOutput();
    });
    const timer = setTimeout(() => {
      hung = true;
      signalGroup("SIGKILL");
    }, options.timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? undefined, signal: signal ?? undefined, hung, stdout, stderr });
    });
  });
}

/**
 * A JavaScript example as written, by the command its comment states (`node haiku.mjs`), or
 * `node <id>.mjs` when it states none. Nothing is bundled or rewritten but the URLs:
 * `import … from "stopstream"` finds this repository's built package (`dist/`, through the
 * package's own `exports`, as a package imports itself), as it finds an installed one.
 */
export function runScriptAsWritten(
  id: string,
  source: string,
  command: StatedCommand | undefined,
  timeoutMs: number,
): Promise<Finished> {
  const dir = `${WORK_DIR}${id}/`;
  mkdirSync(dir, { recursive: true });
  const file = `${dir}${command?.file ?? `${id}.mjs`}`;
  writeFileSync(file, source);
  const bin = command?.runtime === "bun" ? `${ROOT}node_modules/.bin/bun` : process.execPath;
  return runProcess(bin, [file], { env: EXAMPLE_KEYS, timeoutMs });
}

/** A TypeScript example for Node: bundled from source by esbuild, run with `node`. */
export async function runNodeExample(
  id: string,
  source: string,
  timeoutMs: number,
): Promise<Finished> {
  mkdirSync(WORK_DIR, { recursive: true });
  const file = `${WORK_DIR}${id}.mjs`;
  writeFileSync(file, await bundleForNode(source));
  return runProcess(process.execPath, [file], { env: EXAMPLE_KEYS, timeoutMs });
}

/**
 * A Deno example, as written (Deno resolves `jsr:@stopstream/stopstream` to this repository
 * through deno.json), type-checked by Deno and allowed only loopback network and env access.
 */
export function runDenoExample(id: string, source: string, timeoutMs: number): Promise<Finished> {
  mkdirSync(WORK_DIR, { recursive: true });
  const file = `${WORK_DIR}${id}.ts`;
  writeFileSync(file, source);
  const args = ["run", "--check", "--allow-net=127.0.0.1", "--allow-env", file];
  return runProcess(`${ROOT}node_modules/.bin/deno`, args, {
    env: { ...EXAMPLE_KEYS, NO_COLOR: "1" },
    timeoutMs,
  });
}
