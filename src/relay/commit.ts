/** How long the status is held back at most (or `keepAliveMs`); no later failure changes it. */
const COMMIT_MS = 1_000;
/** How often a waiting caller is written to: a Worker learns of a disconnect only by writing. */
const PROBE_MS = 400;

export function commitTiming(keepAliveMs: number): { commitMs: number; probeMs: number } {
  return { commitMs: Math.min(keepAliveMs, COMMIT_MS), probeMs: Math.min(keepAliveMs, PROBE_MS) };
}

/** What {@linkcode raceCommit} resolves with when the commit time came first. */
export const COMMIT: unique symbol = Symbol("commit");

/** A later rejection of `pending` is not left unhandled: whoever committed reads it afterwards. */
export async function raceCommit<T>(pending: Promise<T>, ms: number): Promise<T | typeof COMMIT> {
  pending.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof COMMIT>((resolve) => {
    timer = setTimeout(resolve, ms, COMMIT);
  });
  try {
    return await Promise.race([pending, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
