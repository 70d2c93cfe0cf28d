// Time to first delta and throughput of the floor consumer against several targets, taking
// turns (the order rotates each round, so none always goes first): shared by the relay
// benchmarks (bench/workers/relay.mjs, bench/workers/resume.mjs).

import floor from "../workers/floor.mjs";
import { hashText } from "./streams.mjs";

/** The targets in turn order for round `i`. */
function turn(names, i) {
  return names.map((_, k) => names[(i + k) % names.length]);
}

/** Request start → first text delta, per target, for `trials` rounds after 10 warm-up rounds. */
export async function ttfdByTurns(names, ctxOf, trials) {
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let i = 0; i < trials + 10; i++) {
    for (const name of turn(names, i)) {
      let first = -1;
      const t0 = performance.now();
      const onText = () => {
        if (first < 0) first = performance.now() - t0;
      };
      await floor.consume(ctxOf(name, "short", { onText }));
      if (i >= 10) samples[name].push(first);
    }
  }
  return samples;
}

/**
 * Wall time of `n` deltas written as fast as the socket takes them, per target; text checked.
 * `around(name)`, if given, runs before each run and returns what to run after it.
 */
export async function throughputByTurns(names, ctxOf, { n, runs, server, around }) {
  const key = `tp.openai.${n}.1`;
  const expect = await (await fetch(`${server}/meta/${key}`)).json();
  const wallMs = Object.fromEntries(names.map((name) => [name, []]));
  for (const name of names) await floor.consume(ctxOf(name, "tp.openai.2000.2"));
  for (let run = 0; run < runs; run++) {
    for (const name of turn(names, run)) {
      const after = around?.(name);
      const t0 = performance.now();
      const { text } = await floor.consume(ctxOf(name, key));
      wallMs[name].push(performance.now() - t0);
      after?.();
      if (text.length !== expect.textLength || hashText(text) !== expect.textHash) {
        throw new Error(
          `${name}: wrong text (${text.length} chars, ${expect.textLength} expected)`,
        );
      }
    }
  }
  return { n, events: expect.events, bytes: expect.bytes, wallMs };
}
