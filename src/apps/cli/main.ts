// The `stopstream` command, run by `bin/stopstream.mjs`: dispatch, Ctrl-C and exit. Everything
// process-wide lives here and nowhere else.

import { readFileSync } from "node:fs";
import process from "node:process";
import { addAbortSignal } from "node:stream";
import { text } from "node:stream/consumers";
import { setFlagsFromString } from "node:v8";
import { CHAT_USAGE, type ChatArgs, MAIN_USAGE, parseChatArgs, UsageError } from "./args.ts";
import { EXIT, runChat } from "./chat.ts";

/** After the first Ctrl-C the process exits within this, whatever cleanup is doing. */
const INTERRUPT_DEADLINE_MS = 80;

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) return print(process.stderr, MAIN_USAGE, EXIT.usage);
  if (command === "--help" || command === "-h" || command === "help") {
    return print(process.stdout, MAIN_USAGE, EXIT.ok);
  }
  if (command === "--version" || command === "-v") return print(process.stdout, version(), EXIT.ok);
  if (command !== "chat") {
    const what = command.startsWith("-") ? "option" : "command";
    const line = `stopstream: unknown ${what} ${command} (see stopstream --help)`;
    return print(process.stderr, line, EXIT.usage);
  }
  let args: ChatArgs;
  try {
    args = parseChatArgs(rest);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    // One line: the mistake, and where the usage is. Reprinting it buries the mistake.
    const line = `stopstream: ${error.message} (see stopstream chat --help)`;
    return print(process.stderr, line, EXIT.usage);
  }
  if (args.help) return print(process.stdout, CHAT_USAGE, EXIT.ok);
  if (args.version) return print(process.stdout, version(), EXIT.ok);
  const controller = new AbortController();
  // Installed for the rest of the process: a Ctrl-C during the final flush must still exit 130.
  onInterrupt(controller);
  const stopOnBrokenPipe = onBrokenPipe(controller);
  try {
    return await runChat(args, {
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
      stdinIsTTY: process.stdin.isTTY === true,
      readStdin: () => readAll(process.stdin, controller.signal),
      signal: controller.signal,
    });
  } finally {
    stopOnBrokenPipe();
  }
}

export async function run(): Promise<never> {
  // fetch's HTTP parser (llhttp) is wasm, and `process.exit` waits for V8's background optimiser
  // compiling it; baseline wasm is fast enough for a token stream, and Ctrl-C stays instant.
  setFlagsFromString("--liftoff-only");
  let code: number;
  try {
    code = await main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`stopstream: internal error: ${(error as Error)?.stack ?? error}\n`);
    code = EXIT.failed;
  }
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  // Explicit exit: an open keep-alive socket or the demo server must not hold the process.
  process.exit(code);
}

/** First SIGINT: abort, with a hard deadline. Second: exit now. */
function onInterrupt(controller: AbortController): void {
  process.on("SIGINT", () => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    controller.abort(new Error("interrupted (SIGINT)"));
    setTimeout(() => process.exit(EXIT.interrupted), INTERRUPT_DEADLINE_MS).unref();
  });
}

/** `stopstream chat … | head` closed our stdout: stop the call quietly instead of crashing. */
function onBrokenPipe(controller: AbortController): () => void {
  const handler = (error: NodeJS.ErrnoException): void => {
    if (error.code !== "EPIPE") throw error;
    controller.abort(error);
    process.exit(EXIT.ok);
  };
  process.stdout.on("error", handler);
  return () => process.stdout.off("error", handler);
}

/** Rejects with the signal's reason (runChat reports it), not the stream's `AbortError`. */
async function readAll(stream: NodeJS.ReadStream, signal: AbortSignal): Promise<string> {
  try {
    return await text(addAbortSignal(signal, stream));
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  }
}

function print(stream: NodeJS.WriteStream, line: string, code: number): number {
  stream.write(`${line}\n`);
  return code;
}

function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write("", () => resolve()));
}

function version(): string {
  try {
    // Same relative path from src/apps/cli/ and from dist/apps/cli/.
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8"));
    return `stopstream ${pkg.version}`;
  } catch {
    return "stopstream (unknown version)";
  }
}
