// `npm run bench` (full) / `npm run bench -- --quick` (smoke, < 1 min).
// Runs every contender in fresh child processes against the built package, prints the tables,
// writes bench/results/latest.json and regenerates BENCHMARKS.md from it. A quick run writes
// bench/results/quick.json instead and leaves the published full results alone.
//
// Options: --quick · --only <regex on group/section names> (development; writes nothing)
// · --report (re-render BENCHMARKS.md from bench/results/latest.json and exit).

import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { parseArgs } from "./lib/worker.mjs";
import { groupName, makePlan } from "./lib/plan.mjs";
import { runContender, startServerProcess } from "./lib/spawn.mjs";
import { machine, versions } from "./lib/machine.mjs";
import { summarizeGroup, summarizeInterrupt, summarizeTtfd } from "./lib/summarize.mjs";
import { evaluateTargets } from "./lib/targets.mjs";
import { allTables, ms, textTable } from "./lib/tables.mjs";
import { renderMarkdown } from "./lib/report.mjs";
import { relayBench } from "./lib/relay_bench.mjs";
import { resumeBench } from "./lib/resume_bench.mjs";
import { outageBench } from "./lib/outage_bench.mjs";
import { inboundBench } from "./lib/inbound_bench.mjs";
import { measureAll as measureBundles } from "../scripts/bundle-size.mjs";

const RESULTS = new URL("./results/latest.json", import.meta.url);
const QUICK_RESULTS = new URL("./results/quick.json", import.meta.url);
const MARKDOWN = new URL("../BENCHMARKS.md", import.meta.url);
const args = parseArgs(process.argv.slice(2));

function log(message) {
  process.stderr.write(`${message}\n`);
}

function rotate(list, by) {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

async function throughput(plan, server, only) {
  const out = [];
  for (const group of plan.throughput) {
    const name = groupName(group);
    if (only && !only.test(name)) continue;
    const records = {};
    for (let round = 0; round < group.runs; round++) {
      for (const contender of rotate(group.contenders, round)) {
        // A contender that is skipped (not built, protocol not supported) is not retried.
        if (records[contender]?.[0]?.skipped) continue;
        const record = await runContender(contender, [
          "--task",
          "throughput",
          "--workload",
          group.workload,
          "--n",
          group.n,
          "--delivery",
          group.delivery,
          "--seed",
          plan.seed,
          "--server",
          server.url,
        ]);
        (records[contender] ??= []).push(record);
        const shown = record.ok ? `${ms(record.wallMs)} ms` : record.skipped ? "skipped" : "ERROR";
        log(`  ${name} · round ${round + 1}/${group.runs} · ${contender}: ${shown}`);
        if (!record.ok && !record.skipped) log(`    ${record.error}`);
      }
    }
    out.push(summarizeGroup(group, name, records));
  }
  return out;
}

async function interrupt(plan, server) {
  const out = {};
  const { contenders, phases, trials } = plan.interrupt;
  for (const c of contenders) out[c] = {};
  for (const phase of phases) {
    const record = await runContender("latency", [
      "--task",
      "interrupt",
      "--phase",
      phase,
      "--trials",
      trials,
      "--contenders",
      contenders.join(","),
      "--server",
      server.url,
    ]);
    for (const c of contenders) {
      out[c][phase] = summarizeInterrupt(record.ok ? record.results[c] : record);
      const l = out[c][phase].latencyMs;
      log(`  interrupt · ${phase} · ${c}: ${l ? `median ${ms(l.median)} ms` : "n/a"}`);
    }
    if (!record.ok) log(`    ${record.error}`);
  }
  return out;
}

async function ttfd(plan, server) {
  const { contenders, trials, warmup } = plan.ttfd;
  const record = await runContender("latency", [
    "--task",
    "ttfd",
    "--trials",
    trials,
    "--warmup",
    warmup,
    "--contenders",
    contenders.join(","),
    "--server",
    server.url,
  ]);
  if (!record.ok) log(`    ${record.error}`);
  const records = Object.fromEntries(
    contenders.map((c) => [c, record.ok ? record.results[c] : record]),
  );
  log(`  ttfd: ${record.ok ? "done" : "failed"}`);
  return summarizeTtfd(records);
}

/**
 * Copies dist/ aside so that one build is measured throughout, even if someone rebuilds while
 * the benchmark runs; the workers import it through STOPSTREAM_DIST.
 */
function snapshotDist() {
  const dist = new URL("../dist/", import.meta.url);
  if (!existsSync(new URL("index.js", dist))) {
    log("dist/index.js is missing (run `npm run build`): the stopstream contenders are skipped.");
    return () => {};
  }
  const copy = new URL("./.dist/", import.meta.url);
  rmSync(copy, { recursive: true, force: true });
  cpSync(dist, copy, { recursive: true });
  process.env.STOPSTREAM_DIST = new URL("index.js", copy).href;
  return () => rmSync(copy, { recursive: true, force: true });
}

function writeMarkdown(results) {
  writeFileSync(MARKDOWN, renderMarkdown(results));
  log(`wrote ${MARKDOWN.pathname}`);
}

async function main() {
  if (args.report) {
    if (!existsSync(RESULTS)) {
      throw new Error("no bench/results/latest.json yet: run npm run bench");
    }
    const stored = JSON.parse(readFileSync(RESULTS, "utf8"));
    stored.targets = evaluateTargets(stored);
    return writeMarkdown(stored);
  }
  const quick = Boolean(args.quick);
  const only = typeof args.only === "string" ? new RegExp(args.only) : null;
  const plan = makePlan(quick);
  const started = Date.now();
  const dropSnapshot = snapshotDist();
  const server = await startServerProcess();
  const results = {
    command: `npm run bench${quick ? " -- --quick" : ""}`,
    quick,
    startedAt: new Date(started).toISOString(),
    machine: machine(),
    versions: versions(),
    plan: { seed: plan.seed, interrupt: plan.interrupt, ttfd: plan.ttfd },
    throughput: [],
    interrupt: {},
    ttfd: {},
    relay: { status: "not run" },
    inbound: { status: "not run" },
    resume: { status: "not run" },
    outage: { status: "not run" },
    bundles: [],
    sectionSeconds: {},
  };
  try {
    log(`benchmarks (${quick ? "quick" : "full"}), server ${server.url}`);
    const timed = async (name, fn) => {
      const t0 = Date.now();
      const value = await fn();
      results.sectionSeconds[name] = Math.round((Date.now() - t0) / 100) / 10;
      return value;
    };
    if (!only || only.test("bundle")) {
      results.bundles = await timed("bundle", () => measureBundles());
      log(`  bundle size: ${results.bundles.map((b) => `${b.name} ${b.gzip} B gzip`).join(", ")}`);
    }
    results.throughput = await timed("throughput", () => throughput(plan, server, only));
    if (!only || only.test("interrupt")) {
      results.interrupt = await timed("interrupt", () => interrupt(plan, server));
    }
    if (!only || only.test("ttfd")) results.ttfd = await timed("ttfd", () => ttfd(plan, server));
    if (!only || only.test("relay")) {
      results.relay = await timed("relay", () => relayBench(plan.relay, server, log));
    }
    if (!only || only.test("inbound")) {
      results.inbound = await timed("inbound", () => inboundBench(plan.inbound, log));
    }
    if (!only || only.test("resume")) {
      results.resume = await timed("resume", () => resumeBench(plan.resume, server, log));
    }
    if (!only || only.test("outage")) {
      results.outage = await timed("outage", () => outageBench(plan.outage, server, log));
    }
  } finally {
    server.stop();
    dropSnapshot();
  }
  results.machine.loadAverageAfter = loadavg().map((v) => Math.round(v * 100) / 100);
  results.finishedAt = new Date().toISOString();
  results.durationMs = Date.now() - started;
  results.targets = evaluateTargets(results);
  process.stdout.write(`\n${allTables(results).map(textTable).join("\n\n")}\n`);
  if (only) {
    log("--only: partial run, nothing written");
    return;
  }
  mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
  const file = quick ? QUICK_RESULTS : RESULTS;
  writeFileSync(file, JSON.stringify(results, null, 2) + "\n");
  log(`wrote ${file.pathname}`);
  if (quick) log("quick run: BENCHMARKS.md is left to the full run (npm run bench)");
  else writeMarkdown(results);
}

await main();
