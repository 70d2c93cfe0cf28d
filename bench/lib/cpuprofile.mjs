// Self time by function (file:function:line) and by file, from a V8 .cpuprofile.

import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";

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

/**
 * Self time of a Worker's profile (workerd's inspector, one bundled module), with each native
 * frame's time given to the JS function that called it (`reader.read()` is charged to the
 * function that reads) and bundle positions mapped back to source files through the bundle's
 * source map. Runtime time outside any JS frame ((program), GC, (idle)) stays on its own line.
 * Prints the top functions and files; returns `{ totalMs, functions, files }` (ms per key).
 */
export function printWorkerProfile(path, sourceMapPath, out = process.stdout, limit = 25) {
  const profile = JSON.parse(readFileSync(path, "utf8"));
  const map = sourceMapPath ? new SourceMap(JSON.parse(readFileSync(sourceMapPath, "utf8"))) : null;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  profile.samples.forEach((id, i) =>
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0))
  );
  const where = (node) => {
    const f = node.callFrame;
    if (!f.url) return { file: "(runtime)", key: `(runtime) ${f.functionName}` };
    const entry = map?.findEntry(f.lineNumber, f.columnNumber);
    const file = (entry?.originalSource ?? f.url).replace(/^.*?\/(src|node_modules)\//, "$1/");
    const line = entry?.originalLine !== undefined ? entry.originalLine + 1 : f.lineNumber + 1;
    return { file, key: `${file}:${f.functionName || "(anonymous)"}:${line}` };
  };
  const functions = new Map();
  const files = new Map();
  let total = 0;
  for (const [id, us] of self) {
    let node = byId.get(id);
    // A native frame (no URL) called from JS: charge the JS caller.
    const up = node.callFrame.url ? undefined : byId.get(parent.get(node.id));
    if (up?.callFrame.url) node = up;
    const { file, key } = where(node);
    functions.set(key, (functions.get(key) ?? 0) + us);
    files.set(file, (files.get(file) ?? 0) + us);
    total += us;
  }
  const show = (title, m) => {
    out.write(
      `\n${title} (self time with natives charged to their JS caller, of ${
        (total / 1000).toFixed(0)
      } ms sampled)\n`,
    );
    for (const [key, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
      out.write(
        `${(us / 1000).toFixed(1).padStart(9)} ms ${
          (100 * us / total).toFixed(1).padStart(5)
        }%  ${key}\n`,
      );
    }
  };
  show("By function", functions);
  show("By file", files);
  const ms = (m) => Object.fromEntries([...m].map(([k, us]) => [k, Math.round(us / 100) / 10]));
  return { totalMs: total / 1000, functions: ms(functions), files: ms(files) };
}
