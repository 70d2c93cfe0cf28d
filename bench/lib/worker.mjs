// The child-process side of every benchmark. A contender file (bench/workers/<name>.mjs) exports
// an object with `consume(ctx)` and, run directly, hands it to `runWorker`, which parses the CLI
// arguments, runs one task (throughput, interrupt or ttfd), prints one JSON line and exits.
//
// ctx = { workload, baseURL, url, body, fetch, signal, onText }
// consume(ctx) resolves with `{ text }` (`text` null when the contender does not assemble text).

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { chunksFor, replayFetch } from "./delivery.mjs";
import { buildWorkload, hashText } from "./streams.mjs";
import { context } from "./context.mjs";
import { runInterrupt } from "./interrupt_task.mjs";
import { runTtfd } from "./ttfd_task.mjs";

/**
 * Runs `tasks[name]`, prints `{ ok: true, …result }` (or `{ ok: false, error }`) as one JSON
 * line, and exits: the child side of a benchmark made of named tasks.
 */
export async function runTask(tasks, name) {
  let out;
  try {
    out = { ok: true, ...await tasks[name]() };
  } catch (error) {
    out = { ok: false, error: String(error?.stack ?? error) };
  }
  process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
}

/** Parses `--key value` pairs (a bare `--flag` is `true`). */
export function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i++) {
    const key = argv[i].replace(/^--/, "");
    const next = argv[i + 1];
    if (next === undefined || next.startsWith("--")) args[key] = true;
    else args[key] = argv[++i];
  }
  return args;
}

function sourceFor(args, workload, n, seed) {
  if (args.delivery === "http") {
    const key = `tp.${workload}.${n}.${seed}`;
    return { baseURL: `${args.server}/s/${key}/v1`, fetch: globalThis.fetch, key };
  }
  const data = buildWorkload(workload, n, seed);
  const chunks = chunksFor(args.delivery, data, seed);
  return { baseURL: "http://bench.invalid/v1", fetch: replayFetch(chunks), data, chunks };
}

async function expected(args, source) {
  if (source.data) {
    const { bytes, events, textLength, textHash } = source.data;
    return { bytes: bytes.length, events, textLength, textHash };
  }
  const res = await fetch(`${args.server}/meta/${source.key}`);
  return await res.json();
}

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/**
 * CPU time of the main thread in ms (Linux: schedstat, ns resolution), else of the process.
 * Unlike wall time it is not inflated when other work on the machine takes the core away,
 * and unlike process CPU time it leaves out GC helper threads that run beside the main one.
 */
export function cpuMs() {
  return schedstat()?.[0] ?? (process.cpuUsage().user + process.cpuUsage().system) / 1000;
}

/** `[on-CPU ms, runnable-but-waiting ms]` of the main thread, or null off Linux. */
export function schedstat() {
  try {
    const [run, wait] = readFileSync(SCHEDSTAT, "utf8").split(" ");
    return [Number(run) / 1e6, Number(wait) / 1e6];
  } catch {
    return null;
  }
}

/** A CPU profile of the timed section only (not the stream generation, not the warm-up). */
export async function startProfiler() {
  const { Session } = await import("node:inspector/promises");
  const { writeFileSync } = await import("node:fs");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  return {
    async stop(path) {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(path, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

async function throughput(contender, args) {
  const workload = args.workload ?? "openai";
  const n = Number(args.n ?? 100_000);
  const seed = Number(args.seed ?? 1);
  const why = await contender.supports?.(workload, "throughput");
  if (typeof why === "string") return { ok: false, skipped: why };
  // Warm the JIT on a small stream through the same path, as a long-running app would be.
  const warm = sourceFor(args, workload, Math.min(2000, n), seed + 1);
  for (let i = 0; i < 3; i++) await contender.consume(context(workload, warm.baseURL, warm.fetch));
  const source = sourceFor(args, workload, n, seed);
  const expect = await expected(args, source);
  globalThis.gc?.();
  const profiler = args.profile ? await startProfiler() : null;
  const rssBeforeKiB = process.resourceUsage().maxRSS;
  const cpu0 = cpuMs();
  const wait0 = schedstat()?.[1] ?? 0;
  const t0 = performance.now();
  const { text } = await contender.consume(context(workload, source.baseURL, source.fetch));
  const wallMs = performance.now() - t0;
  const cpu = cpuMs() - cpu0;
  // Time the main thread was ready to run but another process had the core: the noise.
  const waitMs = (schedstat()?.[1] ?? 0) - wait0;
  if (profiler) await profiler.stop(args.profile);
  const maxRSSKiB = process.resourceUsage().maxRSS;
  const verified = text === null || text === undefined
    ? null
    : text.length === expect.textLength && hashText(text) === expect.textHash;
  if (verified === false) {
    return {
      ok: false,
      error: `wrong text: got ${text.length} chars, expected ${expect.textLength}`,
    };
  }
  return {
    ok: true,
    wallMs,
    cpuMs: cpu,
    waitMs,
    bytes: expect.bytes,
    events: expect.events,
    textLength: expect.textLength,
    maxRSSKiB,
    rssBeforeKiB,
    verified,
  };
}

/**
 * Runs the task named on the command line and prints one JSON line. Throughput takes one
 * contender; the latency tasks take one or several, whose trials they interleave.
 */
export async function runWorker(contenders) {
  const list = Array.isArray(contenders) ? contenders : [contenders];
  const args = parseArgs(process.argv.slice(2));
  let out;
  try {
    if (args.task === "throughput") {
      out = list[0].unavailable
        ? { ok: false, skipped: list[0].unavailable }
        : await throughput(list[0], args);
    } else if (args.task === "interrupt") out = await runInterrupt(list, args);
    else if (args.task === "ttfd") out = await runTtfd(list, args);
    else out = { ok: false, error: `unknown task: ${args.task}` };
  } catch (error) {
    out = { ok: false, error: String(error?.stack ?? error) };
  }
  process.stdout.write(JSON.stringify(out) + "\n", () => {
    // Exit at once: an SDK still sleeping out a backoff must not hold the process open.
    process.exit(0);
  });
}

/** Runs `contender` as a worker when its file is the process's entry point. */
export function runIfMain(moduleURL, contender) {
  if (process.argv[1] && moduleURL === pathToFileURL(process.argv[1]).href) runWorker(contender);
}
