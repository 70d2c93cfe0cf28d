// Types of process_groups.mjs, for the TypeScript tests that start relays.
import type { ChildProcess, SpawnOptions } from "node:child_process";

/** How long a child has to end after SIGTERM before it gets SIGKILL. */
export declare const GRACE_MS: number;

/** Whether anything still runs at `target`: a pid, or -pgid for every process of a group. */
export declare function isRunning(target: number): boolean;

/** `child_process.spawn`, and the child (its group, if detached) is stopped with this process. */
export declare function spawnTracked(
  command: string,
  args: readonly string[],
  options?: SpawnOptions,
): ChildProcess;

/** Stops a child of `spawnTracked`: `signal`, SIGKILL after `graceMs`; resolves once gone. */
export declare function stopTracked(
  child: ChildProcess,
  options?: { signal?: NodeJS.Signals; graceMs?: number },
): Promise<void>;
