// Self time by function (file:function:line) and by file, from a V8 .cpuprofile.

import { readFileSync } from "node:fs";

/** Prints the top functions and files of the profile at `path` by self time. */
export function printProfile(path, out = process.stdout) {
  const profile = JSON.parse(readFileSync(path, "utf8"));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const us = deltas[i + 1] ?? 0;
    self.set(node, (self.get(node) ?? 0) + us);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const fnTotals = new Map();
  const fileTotals = new Map();
  for (const [node, us] of self) {
    const f = node.callFrame;
    const file = f.url.replace(/^file:\/\/.*?\/(node_modules|dist|bench)\//, "$1/") || "(native)";
    const key = `${file}:${f.functionName || "(anonymous)"}:${f.lineNumber + 1}`;
    fnTotals.set(key, (fnTotals.get(key) ?? 0) + us);
    fileTotals.set(file, (fileTotals.get(file) ?? 0) + us);
  }
  const show = (title, map, limit) => {
    out.write(`\n${title} (self time, of ${(total / 1000).toFixed(0)} ms sampled)\n`);
    for (const [key, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      out.write(
        `${(us / 1000).toFixed(1).padStart(9)} ms ${
          (100 * us / total).toFixed(1).padStart(5)
        }%  ${key}\n`,
      );
    }
  };
  show("By function", fnTotals, 30);
  show("By file", fileTotals, 15);
}
