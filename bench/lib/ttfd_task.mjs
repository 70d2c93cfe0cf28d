// Time to first delta, child side: request start → the contender's first text event, on a short
// loopback stream, after warm-up requests. Contenders take turns trial by trial, so a noisy
// neighbour on the machine hits them alike.

import { context } from "./context.mjs";
import { usable } from "./interrupt_task.mjs";

async function sample(contender, baseURL) {
  let first = -1;
  const t0 = performance.now();
  const onText = () => {
    if (first < 0) first = performance.now() - t0;
  };
  await contender.consume(context("openai", baseURL, globalThis.fetch, { onText }));
  return first;
}

/** `--trials` measured samples after `--warmup` per contender. */
export async function runTtfd(contenders, args) {
  const trials = Number(args.trials ?? 200);
  const warmup = Number(args.warmup ?? 20);
  const baseURL = `${args.server}/s/short/v1`;
  const { active, results } = await usable(contenders, "ttfd");
  const samples = new Map(active.map((c) => [c, []]));
  for (let i = 0; i < warmup + trials; i++) {
    for (let k = 0; k < active.length; k++) {
      const c = active[(i + k) % active.length];
      const first = await sample(c, baseURL);
      if (first < 0) throw new Error(`${c.name}: no text event`);
      if (i >= warmup) samples.get(c).push(first);
    }
  }
  for (const c of active) results[c.name] = { ok: true, samplesMs: samples.get(c) };
  return { ok: true, results };
}
