// The inbound-routes benchmark, child side: one case of bench/lib/inbound_streams.mjs in a fresh
// process. The relay (`createRelay` of the build under test) runs in this process; the caller
// reads its answer with `reader.read()` and nothing more, so the time is the relay's.
//   --case <id> --n N --trials T
// Warm-up: the answer to a 2,000-delta stream read by stopstream's own client and checked, then
// two N-delta streams read raw (a fresh process needs two before its times settle; a relay that
// serves for hours is past that). Then time to first delta (request → the chunk holding the
// first delta's text) on `T` 10-delta streams, and one timed N-delta stream after a full GC,
// whose answer must end as the route's answers end.

import { loadStopstream } from "../lib/stopstream.mjs";
import {
  CASES,
  clientOptions,
  lastLine,
  relayFor,
  requestInit,
  upstreamPieces,
  WORD,
} from "../lib/inbound_streams.mjs";
import { cpuMs, parseArgs, runTask, schedstat } from "../lib/worker.mjs";

const args = parseArgs(process.argv.slice(2));
const DIST = process.env.STOPSTREAM_DIST ?? new URL("../../dist/index.js", import.meta.url).href;

/** One request through `app`; resolves when its answer has been read to the end. */
async function read(app, c) {
  const init = requestInit(c);
  const decoder = new TextDecoder();
  const t0 = performance.now();
  const response = await app.request(c.route, init);
  if (response.status !== 200) throw new Error(`${c.route}: status ${response.status}`);
  const reader = response.body.getReader();
  let firstMs = -1;
  let head = "";
  let bytes = 0;
  let last;
  let previous;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    previous = last;
    last = value;
    if (firstMs < 0) {
      head += decoder.decode(value, { stream: true });
      if (head.includes(WORD)) firstMs = performance.now() - t0;
    }
  }
  const wallMs = performance.now() - t0;
  // Checked after the clock stops: the answer ends as the route's answers end.
  const tail = [previous, last].map((chunk) => chunk ? decoder.decode(chunk) : "").join("");
  if (!tail.includes(lastLine(c))) {
    throw new Error(`${c.route} (${c.upstream}): the answer does not end with ${lastLine(c)}`);
  }
  return { firstMs, wallMs, bytes };
}

async function measure() {
  const c = CASES.find((x) => x.id === args.case);
  if (!c) throw new Error(`no case ${args.case}`);
  const n = Number(args.n ?? 100_000);
  const trials = Number(args.trials ?? 20);
  const { createRelay } = await import(new URL("relay/index.js", DIST).href);
  const { streamChat } = await loadStopstream(DIST);
  if (typeof streamChat !== "function") throw new Error(`${DIST} has no streamChat`);

  const warmN = Math.min(2000, n);
  const warm = relayFor(createRelay, c, upstreamPieces(c, warmN));
  const { content } = await streamChat(clientOptions(c, warm)).result;
  if (content !== WORD.repeat(warmN)) {
    throw new Error(`${c.route} (${c.upstream}): wrong answer, ${content.length} chars`);
  }
  const app = relayFor(createRelay, c, upstreamPieces(c, n));
  for (let i = 0; i < 2; i++) await read(app, c);

  const short = relayFor(createRelay, c, upstreamPieces(c, 10));
  const ttfdMs = [];
  for (let i = 0; i < trials; i++) ttfdMs.push((await read(short, c)).firstMs);

  globalThis.gc?.();
  const cpu0 = cpuMs();
  const wait0 = schedstat()?.[1] ?? 0;
  const timed = await read(app, c);
  return {
    n,
    ttfdMs,
    wallMs: timed.wallMs,
    cpuMs: cpuMs() - cpu0,
    // Time the main thread was ready to run but another process had the core: the noise.
    waitMs: (schedstat()?.[1] ?? 0) - wait0,
    bytes: timed.bytes,
  };
}

await runTask({ measure }, "measure");
