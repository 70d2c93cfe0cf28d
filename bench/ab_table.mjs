// The Markdown table of `bench/ab.mjs --builds before=…,after=…,before2=… --json <file>` runs:
// per workload and metric, the medians of before and after, after/before (of the medians, and
// of the minimums), the A/A band (the 10th–90th percentile of before2/before per round, widened
// to before2's own ratio) and whether after/before (of the medians) lies inside it.
//
//   node bench/ab_table.mjs <file.json>…

import { readFileSync } from "node:fs";

function workloadOf(run) {
  if (run.task === "throughput") {
    const n = run.n >= 1_000_000 ? `${run.n / 1_000_000}M` : `${run.n / 1000}k`;
    return `${run.workload} ${n} ${run.delivery}`;
  }
  return run.task === "interrupt" ? `interrupt ${run.phase}` : run.task;
}

/** Rounds, and the trials each for the latency tasks. */
function runsOf(run) {
  return run.task === "interrupt" || run.task === "ttfd" ? `${run.runs}×${run.trials}` : run.runs;
}

const f = (v) => v < 10 ? v.toFixed(3) : v.toFixed(1);
const rows = [
  "| workload | runs | contender · metric | before (ms) | after (ms) | after/before | of mins | A/A band | verdict |",
  "|---|---:|---|---:|---:|---:|---:|---:|---|",
];
for (const file of process.argv.slice(2)) {
  const run = JSON.parse(readFileSync(file, "utf8"));
  const [before, after, aa] = run.builds.map((b) => b.name);
  for (const [base, metrics] of Object.entries(run.summary)) {
    for (const [metric, r] of Object.entries(metrics)) {
      const lo = Math.min(r[aa].p10, r[aa].ratio);
      const hi = Math.max(r[aa].p90, r[aa].ratio);
      const ratio = r[after].ratio;
      const verdict = ratio >= lo && ratio <= hi ? "within noise" : "**outside**";
      const cells = [
        workloadOf(run),
        runsOf(run),
        `${base} · ${metric}`,
        f(r[before].median),
        f(r[after].median),
        ratio.toFixed(3),
        (r[after].min / r[before].min).toFixed(3),
        `${lo.toFixed(2)}–${hi.toFixed(2)}`,
        verdict,
      ];
      rows.push(`| ${cells.join(" | ")} |`);
    }
  }
}
process.stdout.write(rows.join("\n") + "\n");
