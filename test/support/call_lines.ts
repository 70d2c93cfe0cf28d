/**
 * The relay's call log lines as a test sees them: `console.log` is spied on, every line kept,
 * and the call log's JSON lines handed out in order or by a test.
 *
 * @module
 */

import { vi } from "vitest";
import type { CallLogLine } from "../../src/relay/call_log.ts";

/** What {@linkcode callLines} gives: the next call log line, one that passes `test`, all lines. */
export interface CallLines {
  next(): Promise<CallLogLine>;
  find(test: (line: CallLogLine) => boolean): Promise<CallLogLine>;
  all: string[];
}

/**
 * Every line `console.log` gets; `next()` waits for the next call log line. Restore with
 * `vi.restoreAllMocks()`.
 *
 * @example
 * ```ts
 * const log = callLines();
 * await fetch(relayURL, init);
 * expect((await log.next()).outcome).toBe("complete");
 * ```
 */
export function callLines(): CallLines {
  const all: string[] = [];
  const lines: CallLogLine[] = [];
  let wake: (() => void) | undefined;
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => {
    const text = args.map(String).join(" ");
    all.push(text);
    if (text.startsWith('{"message":"stopstream.call"')) {
      lines.push(JSON.parse(text) as CallLogLine);
      wake?.();
    }
  });
  let taken = 0;
  return {
    all,
    async next() {
      while (lines.length <= taken) await new Promise<void>((resolve) => (wake = resolve));
      return lines[taken++]!;
    },
    async find(test) {
      for (;;) {
        const found = lines.find(test);
        if (found !== undefined) return found;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
  };
}
