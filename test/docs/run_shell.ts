/**
 * Shell examples, one command at a time, in bash from the repository root. `export` lines carry
 * over to the commands after them. A command passes when it ends with the status its comment
 * promises: `exit N` in the comment means N, a comment that says `Ctrl-C` means the harness
 * presses Ctrl-C (SIGINT to the process group) once the command has printed something and
 * expects 130, and otherwise 0.
 *
 * The environment differs from a reader's terminal in four ways, each to keep the command as
 * written and the run hermetic:
 * - `npx stopstream` runs this repository's bin/stopstream.mjs (npx would first ask the
 *   registry), and a bare `stopstream` fails as "command not found" even where one is installed
 *   globally, as it does for a reader who has not: the docs say `npx stopstream`;
 * - `npm ci` does nothing: the examples run in a clone that is installed already;
 * - `curl` fails on an HTTP error status (`--fail-with-body`), which it would otherwise print and
 *   exit 0 on;
 * - Node processes (the CLI) get `fetch_redirect.mjs` preloaded, which sends requests for a real
 *   provider's base URL to the loopback upstream; URLs written in the command are substituted
 *   like every example's.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { ROOT } from "./bundle.ts";
import { PROVIDER_BASE_URL } from "./example_upstream.ts";
import { EXAMPLE_KEYS, type Finished, runProcess } from "./run_process.ts";

/** One command of a shell block and what its comment promises. */
export interface ShellCommand {
  command: string;
  comment: string;
  expectedStatus: number;
  interrupt: boolean;
}

/** The commands of a block: continuation lines joined, blank and comment-only lines dropped. */
export function shellCommands(source: string): { exports: string[]; commands: ShellCommand[] } {
  const exports: string[] = [];
  const commands: ShellCommand[] = [];
  const logical = source.replace(/\\\n\s*/g, " ").split("\n");
  for (const line of logical) {
    const { code, comment } = splitComment(line);
    if (code.trim() === "") continue;
    if (/^\s*export \w+=/.test(code)) {
      exports.push(code.trim());
      continue;
    }
    const status = /\bexit (\d+)\b/.exec(comment);
    const interrupt = /Ctrl-C/.test(comment);
    commands.push({
      command: code.trim(),
      comment,
      expectedStatus: status !== null ? Number(status[1]) : interrupt ? 130 : 0,
      interrupt,
    });
  }
  return { exports, commands };
}

/** Splits `cmd "a # b" # comment` at the first `#` outside quotes that starts a word. */
function splitComment(line: string): { code: string; comment: string } {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote !== undefined) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"') i++;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1] as string))) {
      return { code: line.slice(0, i), comment: line.slice(i + 1).trim() };
    }
  }
  return { code: line, comment: "" };
}

const PRELUDE = `
set -o pipefail
npx() { if [ "$1" = stopstream ]; then shift; node "$ROOT/bin/stopstream.mjs" "$@"; else command npx "$@"; fi; }
stopstream() { echo "bash: stopstream: command not found (write npx stopstream)" >&2; return 127; }
npm() { if [ "$1" = ci ]; then return 0; fi; command npm "$@"; }
curl() { command curl --silent --show-error --fail-with-body --max-time 30 "$@"; }
`;

const PRELOAD = fileURLToPath(new URL("./fetch_redirect.mjs", import.meta.url));

/** Runs one command of a block, after the block's `export` lines. */
export function runShellCommand(
  command: ShellCommand,
  exports: string[],
  redirect: { upstream: string; id: string },
  timeoutMs: number,
): Promise<Finished> {
  const script = `${PRELUDE}\n${exports.join("\n")}\n${command.command}\n`;
  return runProcess("bash", ["-c", script], {
    env: {
      ...EXAMPLE_KEYS,
      ROOT,
      NO_COLOR: "1",
      NODE_OPTIONS: `--import=${PRELOAD}`,
      STOPSTREAM_EXAMPLE_REDIRECT: JSON.stringify({
        pattern: PROVIDER_BASE_URL.source,
        to: `${redirect.upstream}/x/${redirect.id}/v1`,
      }),
    },
    timeoutMs,
    interruptOnOutput: command.interrupt,
  });
}
