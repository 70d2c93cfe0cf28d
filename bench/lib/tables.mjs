// The result tables, as data (title, header, rows), shared by the stdout table and BENCHMARKS.md.

import { ALL, INTERRUPT, PHASES, TTFD } from "./plan.mjs";
import { bundleTables } from "./bundle_report.mjs";
import { relayTables } from "./relay_report.mjs";
import { resumeTables } from "./resume_bench.mjs";
import { inboundTables } from "./inbound_bench.mjs";
import { outageTables } from "./outage_bench.mjs";

/** Milliseconds, with fewer decimals as they grow. */
export function ms(v) {
  if (v === null || v === undefined) return "—";
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function rate(v) {
  if (v >= 1e6) return `${(v / 1e6).toFixed(2)}M`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(0)}k`;
  return v.toFixed(0);
}

function ratio(v) {
  return v === null || v === undefined ? "—" : `${v.toFixed(2)}×`;
}

function why(cell) {
  return cell.skipped ? `skipped: ${cell.skipped}` : `error: ${String(cell.error).split("\n")[0]}`;
}

/** One table per throughput group. */
export function throughputTables(results) {
  return results.throughput.map((g) => ({
    title: `Throughput — ${g.name} (${g.events?.toLocaleString("en") ?? "?"} events, ${
      ((g.bytes ?? 0) / 1e6).toFixed(1)
    } MB, ${g.runs} runs)`,
    header: [
      "contender",
      "median ms",
      "min–max ms",
      "events/s",
      "MB/s",
      "peak RSS MiB",
      "× floor",
      "× floor (main-thread CPU)",
    ],
    rows: Object.entries(g.contenders).map(([name, c]) =>
      c.ok
        ? [
          name,
          ms(c.wallMs.median),
          `${ms(c.wallMs.min)}–${ms(c.wallMs.max)}`,
          rate(c.eventsPerSec.median),
          c.MBps.median.toFixed(0),
          c.maxRSSMiB.median.toFixed(0),
          ratio(c.ratioToFloor),
          ratio(c.ratioToFloorCpu),
        ]
        : [name, why(c), "", "", "", "", "", ""]
    ),
  }));
}

/** Pairwise time ratios of the headline group: row ÷ column (> 1: the row is slower). */
export function ratioTable(results) {
  const g = headlineGroup(results);
  if (!g) return null;
  const names = ALL.filter((n) => g.ratios[n]);
  return {
    title: `Pairwise time ratios — ${g.name} (row time ÷ column time, same run)`,
    header: ["", ...names],
    rows: names.map((a) => [a, ...names.map((b) => ratio(g.ratios[a][b]))]),
  };
}

/** The group the headline numbers come from: 1M chunked when measured, else the first. */
export function headlineGroup(results) {
  return results.throughput.find((g) => g.n >= 1_000_000 && g.delivery === "chunked") ??
    results.throughput[0];
}

/** Interrupt latency, one table per phase. */
export function interruptTables(results) {
  const titles = {
    headers: "waiting for headers",
    mid: "parked on a mid-stream read",
    backoff: "sleeping in retry backoff after a 503",
  };
  return PHASES.map((phase) => ({
    title: `Interrupt latency — ${titles[phase]} (abort() → loop/promise settled)`,
    header: [
      "contender",
      "median ms",
      "p90",
      "p99",
      "max",
      "server sees close (median / p99 ms)",
      "how it ends",
    ],
    rows: INTERRUPT.map((name) => {
      const c = results.interrupt[name]?.[phase];
      if (!c) return [name, "not run", "", "", "", "", ""];
      if (!c.ok) return [name, why(c), "", "", "", "", ""];
      const l = c.latencyMs ?? {};
      const close = c.serverCloseMs
        ? `${ms(c.serverCloseMs.median)} / ${ms(c.serverCloseMs.p99)}`
        : phase === "backoff"
        ? "n/a (no open request)"
        : "—";
      const ends = Object.entries(c.endings).map(([k, v]) => `${k} ×${v}`).join("; ");
      return [
        name,
        ms(l.median),
        ms(l.p90),
        ms(l.p99),
        ms(l.max),
        close,
        ends + (c.batched ? " (timer-bound: trials 11+ ran 10 at a time)" : ""),
      ];
    }),
  }));
}

/** Time to first delta. */
export function ttfdTable(results) {
  return {
    title: "Time to first delta — request start → first text event (loopback, warm)",
    header: ["contender", "median ms", "p90", "p99", "min", "median − raw fetch"],
    rows: TTFD.map((name) => {
      const c = results.ttfd[name];
      if (!c) return [name, "not run", "", "", "", ""];
      if (!c.ok) return [name, why(c), "", "", "", ""];
      const d = c.deltaVsRawMs;
      return [
        name,
        ms(c.median),
        ms(c.p90),
        ms(c.p99),
        ms(c.min),
        d === undefined ? "—" : `${d >= 0 ? "+" : ""}${d.toFixed(2)} ms`,
      ];
    }),
  };
}

/** The targets with met / not met. */
export function targetsTable(results) {
  return {
    title: "Targets",
    header: ["target", "scope", "measured", "limit", "result"],
    rows: results.targets.map((t) => [
      t.target,
      t.scope,
      t.measured === null ? "—" : `${t.measured} ${t.unit}`.trim(),
      t.limit === null ? "—" : String(t.limit),
      t.met === null
        ? (t.unit.startsWith("skipped") || t.unit.startsWith("not") ? t.unit : "n/a")
        : t.met
        ? "met"
        : "**not met**",
    ]),
  };
}

/** Every table, in report order. */
export function allTables(results) {
  return [
    targetsTable(results),
    ...throughputTables(results),
    ratioTable(results),
    ...interruptTables(results),
    ttfdTable(results),
    ...relayTables(results),
    ...inboundTables(results),
    ...resumeTables(results),
    ...outageTables(results),
    ...bundleTables(results),
  ].filter(Boolean);
}

/** A fixed-width text rendering for stdout. */
export function textTable({ title, header, rows }) {
  const plain = (s) => String(s).replaceAll("**", "");
  const widths = header.map((h, i) =>
    Math.max(plain(h).length, ...rows.map((r) => plain(r[i]).length))
  );
  const line = (cells) => cells.map((c, i) => plain(c).padEnd(widths[i])).join("  ").trimEnd();
  return [title, line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)]
    .join("\n");
}

/** A Markdown rendering. */
export function markdownTable({ title, header, rows }) {
  const esc = (s) => String(s).replaceAll("|", "\\|");
  return [
    `### ${title}`,
    "",
    `| ${header.map(esc).join(" | ")} |`,
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.map((r) => `| ${r.map(esc).join(" | ")} |`),
  ].join("\n");
}
