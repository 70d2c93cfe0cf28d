// The relay benchmark, child side: the floor consumer against the relay under `wrangler dev`
// and directly against the same loopback upstream, taking turns.
//   --task relay-ttfd --trials N · --task relay-throughput --n N --runs R
//   --task relay-load --streams 200 --waves 5 [--workerd <pid> --proxy <pid> --inspector <ws>]
// (with --server <upstream> --relay <relay URL>). Waves of concurrent paced streams (100 deltas,
// one per 10 ms) through the relay; every fifth caller disconnects mid-stream. After each wave:
// what the upstream saw (requests, completed, cancelled, still open), how long after each
// disconnect its upstream connection closed, the RSS of the relay's workerd and of wrangler's
// proxy workerd, and the relay isolate's JS heap after a full GC.

import { readFileSync } from "node:fs";
import floor from "./floor.mjs";
import { context } from "../lib/context.mjs";
import { heapAfterGCMiB } from "../lib/heap.mjs";
import { hashText, openaiStream, REQUEST_BODY } from "../lib/streams.mjs";
import { parseArgs } from "../lib/worker.mjs";

const args = parseArgs(process.argv.slice(2));
const targets = { direct: `${args.server}/m/v1`, relay: `${args.relay}/v1` };

function ctx(baseURL, model, extra = {}) {
  return context("openai", baseURL, globalThis.fetch, {
    body: { ...REQUEST_BODY, model },
    ...extra,
  });
}

async function ttfd() {
  const trials = Number(args.trials ?? 100);
  const samples = { direct: [], relay: [] };
  for (let i = 0; i < trials + 10; i++) {
    for (const name of i % 2 ? ["relay", "direct"] : ["direct", "relay"]) {
      let first = -1;
      const t0 = performance.now();
      const onText = () => {
        if (first < 0) first = performance.now() - t0;
      };
      await floor.consume(ctx(targets[name], "short", { onText }));
      if (i >= 10) samples[name].push(first);
    }
  }
  return samples;
}

async function throughput() {
  const n = Number(args.n ?? 100_000);
  const key = `tp.openai.${n}.1`;
  const expect = await (await fetch(`${args.server}/meta/${key}`)).json();
  const wallMs = { direct: [], relay: [] };
  for (const name of ["direct", "relay"]) {
    await floor.consume(ctx(targets[name], "tp.openai.2000.2"));
  }
  for (let run = 0; run < Number(args.runs ?? 3); run++) {
    for (const name of run % 2 ? ["relay", "direct"] : ["direct", "relay"]) {
      const t0 = performance.now();
      const { text } = await floor.consume(ctx(targets[name], key));
      wallMs[name].push(performance.now() - t0);
      if (text.length !== expect.textLength || hashText(text) !== expect.textHash) {
        throw new Error(
          `${name}: wrong text (${text.length} chars, ${expect.textLength} expected)`,
        );
      }
    }
  }
  return { n, events: expect.events, bytes: expect.bytes, wallMs };
}

function rssMiB(pid) {
  if (!pid) return null;
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/);
  return line ? Math.round(Number(line[1]) / 102.4) / 10 : null;
}

async function stats() {
  return await (await fetch(`${args.server}/stats`)).json();
}

async function wave(w, streams, full) {
  const before = await stats();
  const outcomes = { complete: 0, incomplete: 0, aborted: 0, failed: 0 };
  let firstFailure;
  const jobs = [];
  const dropped = new Map();
  for (let i = 0; i < streams; i++) {
    // Every fifth caller goes away mid-stream, after 5–74 deltas.
    const dropAfter = i % 5 === 0 ? 5 + ((i * 7 + w * 13) % 70) : Infinity;
    const controller = new AbortController();
    let seen = 0;
    const id = `${w}-${i}-${process.pid}`;
    const onText = () => {
      if (++seen !== dropAfter) return;
      dropped.set(id, process.hrtime.bigint());
      controller.abort();
    };
    jobs.push(
      floor.consume(ctx(targets.relay, `slow.${id}`, { onText, signal: controller.signal }))
        .then(({ text }) => outcomes[text === full ? "complete" : "incomplete"]++)
        .catch((e) => {
          if (controller.signal.aborted) return void outcomes.aborted++;
          outcomes.failed++;
          firstFailure ??= String(e?.cause?.message ?? e?.message ?? e);
        }),
    );
  }
  await Promise.all(jobs);
  const t0 = performance.now();
  let after = await stats();
  while (after.open > 0 && performance.now() - t0 < 10_000) {
    await new Promise((resolve) => setTimeout(resolve, 10)); // poll the upstream's count
    after = await stats();
  }
  const closes = await (await fetch(`${args.server}/closes`, {
    method: "POST",
    body: JSON.stringify([...dropped.keys()]),
  })).json();
  // Only the upstream streams that were cut short count: a disconnect that came after the
  // upstream had finished (the caller lagging behind the relay) has nothing left to cancel.
  const closeAfterMs = [...dropped]
    .filter(([id]) => closes[id] && !closes[id].completed)
    .map(([id, at]) => Number(BigInt(closes[id].ns) - at) / 1e6);
  const finishedFirst =
    [...dropped].filter(([id, at]) => closes[id]?.completed && BigInt(closes[id].ns) <= at).length;
  const ranOn =
    [...dropped].filter(([id, at]) => closes[id]?.completed && BigInt(closes[id].ns) > at).length;
  return {
    wave: w,
    // Caller gone → the upstream connection closed, per disconnecting caller (ms).
    upstreamCloseAfterDisconnectMs: closeAfterMs,
    // Disconnects whose upstream had already finished / that the upstream never noticed.
    upstreamFinishedBeforeDisconnect: finishedFirst,
    upstreamRanToEndAfterDisconnect: ranOn,
    callers: outcomes,
    firstFailure,
    upstreamRequests: after.started - before.started,
    upstreamCompleted: after.completed - before.completed,
    upstreamCancelled: after.cancelled - before.cancelled,
    upstreamOpenAtEnd: after.open,
    allClosedAfterMs: Math.round((performance.now() - t0) * 10) / 10,
    // The relay's workerd (not wrangler's proxy in front of it), then the proxy, raw RSS.
    workerdRSSMiB: rssMiB(Number(args.workerd)),
    proxyRSSMiB: rssMiB(Number(args.proxy)),
    // The relay isolate's JS heap after a full GC: what a leak in the relay would grow.
    heapAfterGCMiB: await heapAfterGCMiB(args.inspector),
  };
}

async function load() {
  const full = openaiStream(100, 9);
  const text = new TextDecoder().decode(full.bytes);
  // The expected answer: the concatenated deltas, recovered the way the floor reads them.
  let expected = "";
  for (const line of text.split("\n")) {
    if (!line.startsWith("data: {")) continue;
    const content = JSON.parse(line.slice(6)).choices[0]?.delta?.content;
    if (content) expected += content;
  }
  const streams = Number(args.streams ?? 200);
  const waves = [];
  const rssBefore = rssMiB(Number(args.workerd));
  const heapBefore = await heapAfterGCMiB(args.inspector);
  for (let w = 0; w < Number(args.waves ?? 5); w++) waves.push(await wave(w, streams, expected));
  return { streams, dropShare: 0.2, rssBeforeMiB: rssBefore, heapBeforeMiB: heapBefore, waves };
}

const tasks = { "relay-ttfd": ttfd, "relay-throughput": throughput, "relay-load": load };
let out;
try {
  out = { ok: true, ...await tasks[args.task]() };
} catch (error) {
  out = { ok: false, error: String(error?.stack ?? error) };
}
process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
