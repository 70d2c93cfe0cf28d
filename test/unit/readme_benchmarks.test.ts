/**
 * The README's benchmark figures are promises too: each one must be a figure of the last run
 * that BENCHMARKS.md reports (bench/lib/report.mjs writes that file from bench/results/). A
 * re-run of `npm run bench` that moves a figure fails here until the README says it too.
 */

import { readFileSync } from "node:fs";
import { expect, test } from "vitest";

const root = new URL("../../", import.meta.url);
const readme = readFileSync(new URL("README.md", root), "utf8");
const report = readFileSync(new URL("BENCHMARKS.md", root), "utf8");

/** The text of `doc` from the heading `## title` to the next `## `. */
function section(doc: string, title: string): string {
  const start = doc.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`no section "## ${title}"`);
  const end = doc.indexOf("\n## ", start + 1);
  return doc.slice(start, end === -1 ? undefined : end);
}

/** Every "<number> ms", "<number> KB" and "<number>×" of `text`, as written. */
function figures(text: string): string[] {
  return [...text.matchAll(/\b\d[\d,]*(?:\.\d+)?(?: ms| KB|×)/g)].map((m) => m[0]);
}

// Targets and budgets, not measurements.
const LIMITS = new Set(["20 KB", "1.3×"]);

test("the README's benchmark table is BENCHMARKS.md's headline run", () => {
  const headline = section(report, "Headline");
  const rows = section(readme, "Benchmarks").split("\n").filter((line) =>
    /^\| .* ms \|/.test(line)
  );
  expect(rows.length).toBe(5);
  for (const row of rows) {
    const [, , median] = row.split("|").map((cell) => cell.trim());
    expect(headline, `README row: ${row}`).toContain(`${median}`);
  }
});

test("every other figure of the README's Benchmarks section is one BENCHMARKS.md reports", () => {
  const said = figures(section(readme, "Benchmarks")).filter((figure) => !LIMITS.has(figure));
  expect(said.length).toBeGreaterThan(10);
  // A "×" in the report's tables is written "1.00× |" (a target's measure "1.235 ×"), a time
  // "0.51 |" or "0.51 ms".
  const missing = said.filter((figure) => {
    const bare = figure.replace(/ ms$|×$/, "");
    return !report.includes(figure) && !report.includes(`| ${bare} |`) &&
      !report.includes(`+${figure}`) && !(figure.endsWith("×") && report.includes(`${bare} ×`));
  });
  expect(missing, "README figures BENCHMARKS.md does not report").toEqual([]);
});
