// The resumable-stream benchmark, child side: against the relay Worker (with its STREAMS Durable
// Object) and the benchmark's loopback upstream, the same requests with and without
// `x-stopstream-resumable: true`, taking turns.
//   --task resume-ttfd --trials N · --task resume-throughput --n N --runs R
//   --task resume-gap --trials N · --task resume-cancel --trials N · --task resume-writes --n N
// (with --server <upstream> --relay <relay URL>).
//   ttfd: request → first content delta, the floor consumer, with and without the header.
//   throughput: N deltas as fast as the upstream writes them, with and without; text checked.
//   gap: a paced stream (100 deltas, 10 ms apart) read to its 5th delta and dropped; then the
//     reconnect (GET /v1/streams/{id}, Last-Event-ID) → its first new event.
//   cancel: POST /v1/streams/{id}/cancel sent → the upstream sees its connection close.
//   writes: storage rows the stream's Durable Object wrote, per 1,000 events (paced and fast).

import { context } from "../lib/context.mjs";
import { REQUEST_BODY } from "../lib/streams.mjs";
import { throughputByTurns, ttfdByTurns } from "../lib/turns.mjs";
import { parseArgs, runTask } from "../lib/worker.mjs";

const args = parseArgs(process.argv.slice(2));
const relay = `${args.relay}/v1`;
const RESUMABLE = { "x-stopstream-resumable": "true" };
const MODES = { plain: {}, resumable: RESUMABLE };

function ctx(model, headers, extra = {}) {
  return context("openai", relay, globalThis.fetch, {
    body: { ...REQUEST_BODY, model },
    headers,
    ...extra,
  });
}

const ctxOf = (mode, model, extra) => ctx(model, MODES[mode], extra);

function ttfd() {
  return ttfdByTurns(["plain", "resumable"], ctxOf, Number(args.trials ?? 100));
}

function throughput() {
  const options = {
    n: Number(args.n ?? 100_000),
    runs: Number(args.runs ?? 3),
    server: args.server,
  };
  return throughputByTurns(["plain", "resumable"], ctxOf, options);
}

/** POSTs a resumable streaming request for `model`; resolves with the response. */
function start(model, signal) {
  return fetch(`${relay}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...RESUMABLE },
    body: JSON.stringify({ ...REQUEST_BODY, model, stream: true }),
    signal,
  });
}

/** Reads complete events until `until(event)`; returns that event (`{ id, data }`). */
async function readUntil(reader, until) {
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error("the stream ended first");
    text += decoder.decode(value, { stream: true });
    let end;
    while ((end = text.indexOf("\n\n")) >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      const id = /^id: (\d+)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (data !== undefined && until({ id: Number(id), data })) return { id: Number(id), data };
    }
  }
}

const isDelta = (event) => event.data.includes('"content":');

async function gap() {
  const trials = Number(args.trials ?? 50);
  const gapMs = [];
  for (let i = 0; i < trials + 3; i++) {
    const caller = new AbortController();
    const response = await start(`slow.gap-${i}-${process.pid}`, caller.signal);
    const id = response.headers.get("x-stopstream-stream-id");
    let deltas = 0;
    const last = await readUntil(response.body.getReader(), (e) => isDelta(e) && ++deltas === 5);
    caller.abort(); // the connection drops
    const t0 = performance.now();
    const resumed = await fetch(`${relay}/streams/${id}`, {
      headers: { "last-event-id": String(last.id) },
    });
    const reader = resumed.body.getReader();
    const next = await readUntil(reader, () => true);
    const ms = performance.now() - t0;
    if (next.id !== last.id + 1) throw new Error(`resumed at ${next.id}, not ${last.id + 1}`);
    await reader.cancel();
    await (await fetch(`${relay}/streams/${id}/cancel`, { method: "POST" })).arrayBuffer();
    if (i >= 3) gapMs.push(ms);
  }
  return { gapMs };
}

async function cancel() {
  const trials = Number(args.trials ?? 50);
  const closeMs = [];
  for (let i = 0; i < trials + 3; i++) {
    const slowId = `cancel-${i}-${process.pid}`;
    const response = await start(`slow.${slowId}`);
    const id = response.headers.get("x-stopstream-stream-id");
    let deltas = 0;
    const reader = response.body.getReader();
    await readUntil(reader, (e) => isDelta(e) && ++deltas === 3);
    const sent = process.hrtime.bigint();
    await (await fetch(`${relay}/streams/${id}/cancel`, { method: "POST" })).arrayBuffer();
    await reader.cancel();
    const closes = await (await fetch(`${args.server}/closes`, {
      method: "POST",
      body: JSON.stringify([slowId]),
    })).json();
    const close = closes[slowId];
    if (!close || close.completed) throw new Error(`stream ${slowId} was not cut short`);
    if (i >= 3) closeMs.push(Number(BigInt(close.ns) - sent) / 1e6);
  }
  return { closeMs };
}

/** Storage rows written per 1,000 events, for one finished stream of `model`. */
async function writesOf(model) {
  const response = await start(model);
  const id = response.headers.get("x-stopstream-stream-id");
  await response.arrayBuffer();
  const status = await (await fetch(`${relay}/streams/${id}`, {
    headers: { accept: "application/json" },
  })).json();
  return {
    events: status.events,
    writes: status.storage_writes,
    per1000: (status.storage_writes / status.events) * 1000,
  };
}

async function writes() {
  const n = Number(args.n ?? 100_000);
  return {
    paced: await writesOf(`slow.writes-${process.pid}`),
    fast: await writesOf(`tp.openai.${n}.1`),
  };
}

const tasks = {
  "resume-ttfd": ttfd,
  "resume-throughput": throughput,
  "resume-gap": gap,
  "resume-cancel": cancel,
  "resume-writes": writes,
};
await runTask(tasks, args.task);
