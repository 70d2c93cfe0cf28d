/**
 * Self-hosting examples (docs/relay.md, "Run it on Node, Deno or Bun"): a relay server as a
 * reader runs it, from a file inside this repository, unbundled. `stopstream/hono` is this
 * package's built `dist/` (a package may import itself by name through its `exports`, as an
 * installed copy is imported) and Deno's `jsr:@stopstream/stopstream/hono` this repository's
 * deno.json. The server listens on the port `PORT` names (0: any), prints its URL, and runs
 * until it is stopped.
 *
 * @module
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { ROOT } from "./bundle.ts";
import { EXAMPLE_KEYS, type Finished, WORK_DIR } from "./run_process.ts";

/** The runtimes a server example may name (its fence: `js node server`, `ts deno server`, …). */
export type ServerRuntime = "node" | "deno" | "bun";

/** What a server example printed once it listened. */
const LISTENING = /http:\/\/127\.0\.0\.1:(\d+)/;

/**
 * A running server example.
 *
 * @example
 * ```ts
 * const server = await startServerExample("relay-300", source, "node", env, 30_000);
 * await fetch(`${server.origin}/healthz`);
 * const run = await server.stop();
 * ```
 */
export interface ServerExample {
  /** `http://127.0.0.1:<port>`, from what it printed. */
  origin: string;
  /** Stops its process group; resolves with what it printed and how it ended. */
  stop(): Promise<Finished>;
}

/** The file name the example's first comment gives (`// relay.mjs: …`), or one of its own. */
function fileName(id: string, source: string, runtime: ServerRuntime): string {
  const named = /^\/\/ ([\w.-]+\.(?:mjs|js|ts)):/.exec(source)?.[1];
  return named ?? `${id}.${runtime === "node" ? "mjs" : "ts"}`;
}

/**
 * The command to run it. Deno's flags are the ones the example's comment states
 * (`` `deno run --allow-net --allow-env relay.ts` ``), its network narrowed to loopback, with
 * `--check` as well.
 */
function command(runtime: ServerRuntime, file: string, source: string): [string, string[]] {
  if (runtime === "node") return [process.execPath, [file]];
  if (runtime === "bun") return [`${ROOT}node_modules/.bin/bun`, [file]];
  const stated = /`deno run ((?:--[\w-]+(?:=\S+)? )*)[\w.-]+\.ts`/.exec(source)?.[1] ?? "";
  const flags = stated.split(" ").filter((flag) => flag !== "").map((flag) =>
    flag.startsWith("--allow-net") ? "--allow-net=127.0.0.1" : flag
  );
  return [`${ROOT}node_modules/.bin/deno`, ["run", "--check", ...flags, file]];
}

/**
 * Starts the example with `env` (the examples' keys, `PORT=0`), and resolves once it printed a
 * loopback URL; rejects with its output if it exits first or prints none within `timeoutMs`.
 */
export async function startServerExample(
  id: string,
  source: string,
  runtime: ServerRuntime,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<ServerExample> {
  const dir = `${WORK_DIR}${id}/`;
  mkdirSync(dir, { recursive: true });
  const file = `${dir}${fileName(id, source, runtime)}`;
  writeFileSync(file, source);
  const [bin, args] = command(runtime, file, source);
  const child: ChildProcess = spawn(bin, args, {
    cwd: dir,
    env: { ...process.env, ...EXAMPLE_KEYS, NO_COLOR: "1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr?.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const ended = new Promise<Finished>((resolve) => {
    child.on("close", (code, signal) => {
      resolve({ code: code ?? undefined, signal: signal ?? undefined, hung, stdout, stderr });
    });
  });
  let hung = false;
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-(child.pid as number), signal);
    } catch {
      // The group is gone already.
    }
  };
  const stop = async (): Promise<Finished> => {
    signalGroup("SIGTERM");
    const killer = setTimeout(() => signalGroup("SIGKILL"), 3_000);
    const run = await ended;
    clearTimeout(killer);
    return run;
  };
  const port = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      hung = true;
      reject(new Error(`printed no URL within ${timeoutMs} ms`));
    }, timeoutMs);
    const onData = (): void => {
      const match = LISTENING.exec(stdout);
      if (match === null) return;
      clearTimeout(timer);
      resolve(match[1] as string);
    };
    child.stdout?.on("data", onData);
    void ended.then(() => {
      clearTimeout(timer);
      reject(new Error("exited before it printed its URL"));
    });
  }).catch(async (error: Error) => {
    const run = await stop();
    throw new Error(
      `${error.message}\n--- stdout ---\n${run.stdout.slice(-2000)}\n--- stderr ---\n${
        run.stderr.slice(-2000)
      }`,
    );
  });
  return { origin: `http://127.0.0.1:${port}`, stop };
}
