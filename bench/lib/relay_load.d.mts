// Types of relay_load.mjs, for the TypeScript test that runs the small version
// (test/e2e/relay_load.test.ts).

/** What the load test needs from stopstream: src/ under vitest, the built dist/ in the bench. */
export interface LoadLib {
  createDemoUpstream(options?: { wordDelayMs?: number }): (request: Request) => Promise<Response>;
  toWebRequest(req: unknown, origin: string, signal: AbortSignal): Promise<Request>;
  writeWebResponse(response: Response, res: unknown): Promise<void>;
}

export interface Latency {
  n: number;
  min: number;
  median: number;
  p90: number;
  p99: number;
  max: number;
}

export interface LoadWave {
  wave: number;
  streams: number;
  durationMs: number;
  maxConcurrent: number;
  callers: { complete: number; wrong: number; failed: number; disconnected: number };
  firstProblem?: string;
  disconnects: {
    n: number;
    cancelled: number;
    withinLimit: number;
    finishedFirst: number;
    ranOn: number;
    stillOpen: number;
    cancelMs: Latency | null;
    ranOnMs: number[];
  };
  fds: { baseline: number; peak: number; after: number; settleMs: number };
  closeWait: { peak: number; after: number };
  internalConnections: { peak: number; after: number };
  perProcess: Array<{ name: string; baseline: number | null; peak: number | null; after: number }>;
  healthz: Partial<Latency> & { n: number; failures: number; over100: number };
  relayCpuMs: number;
  heapAfterGCMiB: number | null;
  broken: string[];
}

export interface LoadResult {
  runner: string;
  streams: number;
  heapBeforeMiB: number | null;
  words: number;
  wordDelayMs: number;
  rampMs: number;
  waves: LoadWave[];
  passed: boolean;
}

export const LIMITS: { cancelMs: number; fdRatio: number; healthzMs: number };

export function runRelayLoad(lib: LoadLib, options?: {
  runner?: "npm-start" | "wrangler-dev" | "start-worker" | "control";
  streams?: number;
  waves?: number;
  words?: number;
  wordDelayMs?: number;
  rampMs?: number;
  /** Also measure the relay isolate's JS heap after a full GC (npm-start runner only). */
  heap?: boolean;
  log?: (wave: LoadWave) => void;
}): Promise<LoadResult>;

/** The deltas after which a disconnecting caller may go (`first` + 0 … `window` - 1). */
export function dropWindow(
  words: number,
  wordDelayMs: number,
  rampMs: number,
): { first: number; window: number };

export function judgeWave(wave: LoadWave, first?: LoadWave): string[];
