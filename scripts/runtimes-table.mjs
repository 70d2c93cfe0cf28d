// Renders the "Runtimes tested" table of docs/runtimes.md from .tmp/runtimes.json, which `npm test` writes from
// what actually ran. Prints the table; with `--update FILE…` it also replaces the text between
// `<!-- runtimes:start -->` and `<!-- runtimes:end -->` in each file.
//
//   node scripts/runtimes-table.mjs
//   node scripts/runtimes-table.mjs --update docs/runtimes.md
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const START = "<!-- runtimes:start -->";
const END = "<!-- runtimes:end -->";

let report;
try {
  report = JSON.parse(readFileSync(`${root}.tmp/runtimes.json`, "utf8"));
} catch {
  console.error("No .tmp/runtimes.json: run `npm test` first.");
  process.exit(1);
}

const RESULT = { pass: "✅ passing", fail: "❌ failing", skipped: "⚠️ skipped" };
const cell = (text) => String(text).replaceAll("|", "\\|");
const rows = report.runtimes.map((r) =>
  `| ${cell(r.runtime)} | ${cell(r.version)} | ${cell(r.how)} | ${RESULT[r.status] ?? r.status} |`
);
const day = report.generatedAt.slice(0, 10);
const table = [
  "| Runtime | Version tested | How it is tested | Result |",
  "| --- | --- | --- | --- |",
  ...rows,
  "",
  `What \`npm test\` ran on ${day} (it writes .tmp/runtimes.json; ` +
  "`node scripts/runtimes-table.mjs --update docs/runtimes.md` copies it here). Every row runs the " +
  "same conformance suite (test/conformance/suite.ts) against a loopback fault server.",
].join("\n");

console.log(table);

const at = process.argv.indexOf("--update");
if (at !== -1) {
  for (const file of process.argv.slice(at + 1)) {
    const text = readFileSync(file, "utf8");
    const start = text.indexOf(START);
    const end = text.indexOf(END);
    if (start === -1 || end < start) {
      console.error(`${file}: no ${START} … ${END} markers`);
      process.exitCode = 1;
      continue;
    }
    writeFileSync(file, `${text.slice(0, start + START.length)}\n${table}\n${text.slice(end)}`);
    console.error(`updated ${file}`);
  }
}
