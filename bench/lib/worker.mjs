// The child-process side of every benchmark. A contender file (bench/workers/<name>.mjs) hands
// `runWorker` an object with `consume(ctx)`; this module parses the CLI arguments, runs one
// task (throughput, interrupt or ttfd), prints one JSON line and exits.
//
// ctx = { workload, baseURL, url, body, fetch, signal, onText }
// consume(ctx) resolves with `{ text }` (`text` null when the contender does not assemble text).

import { chunksFor, replayFetch } from "./delivery.mjs";
import { buildWorkload, hashText } from "./streams.mjs";
import { context } from "./context.mjs";
import { runInterrupt } from "./interrupt_task.mjs";

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
  const rssBeforeKiB = process.resourceUsage().maxRSS;
  const t0 = performance.now();
  const { text } = await contender.consume(context(workload, source.baseURL, source.fetch));
  const wallMs = performance.now() - t0;
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
    bytes: expect.bytes,
    events: expect.events,
    textLength: expect.textLength,
    maxRSSKiB,
    rssBeforeKiB,
    verified,
  };
}

async function ttfd(contender, args) {
  const why = await contender.supports?.("openai", "ttfd");
  if (typeof why === "string") return { ok: false, skipped: why };
  const trials = Number(args.trials ?? 200);
  const warmup = Number(args.warmup ?? 20);
  const baseURL = `${args.server}/s/short/v1`;
  const samples = [];
  for (let i = 0; i < warmup + trials; i++) {
    let first = -1;
    const t0 = performance.now();
    const onText = () => {
      if (first < 0) first = performance.now() - t0;
    };
    await contender.consume(context("openai", baseURL, globalThis.fetch, { onText }));
    if (first < 0) return { ok: false, error: "no text event" };
    if (i >= warmup) samples.push(first);
  }
  return { ok: true, samplesMs: samples };
}

/** Runs the task named on the command line against `contender` and prints one JSON line. */
export async function runWorker(contender) {
  const args = parseArgs(process.argv.slice(2));
  let out;
  try {
    if (contender.unavailable) out = { ok: false, skipped: contender.unavailable };
    else if (args.task === "throughput") out = await throughput(contender, args);
    else if (args.task === "interrupt") out = await runInterrupt(contender, args);
    else if (args.task === "ttfd") out = await ttfd(contender, args);
    else out = { ok: false, error: `unknown task: ${args.task}` };
  } catch (error) {
    out = { ok: false, error: String(error?.stack ?? error) };
  }
  process.stdout.write(JSON.stringify(out) + "\n", () => {
    // Exit at once: an SDK still sleeping out a backoff must not hold the process open.
    process.exit(0);
  });
}
