// bench/ab.mjs --builds: the same contenders from several builds, and their ratios to the first.
// Each build's dist/ is copied aside (under its tree's .tmp/, so its imports still resolve from
// that tree's node_modules): every name is its own module graph, so two names on one tree are
// an A/A pair, the measure of the noise; a rebuild during the run changes nothing.

import { cpSync, existsSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadStopstream } from "./stopstream.mjs";
import { median, percentile } from "./stats.mjs";

/** `before=/path,after=.` → `[{ name, root }]` (root: a tree with a built dist/). */
export function parseBuilds(spec) {
  return String(spec).split(",").map((pair) => {
    const [name, root] = pair.split("=");
    if (!name || !root) throw new TypeError(`--builds: expected name=path, got "${pair}"`);
    return { name, root: resolve(root) };
  });
}

/** Copies each build's dist/ aside; resolves with `{ builds, drop }`, builds with `.url`. */
export function snapshot(builds) {
  const copies = [];
  for (const b of builds) {
    if (!existsSync(`${b.root}/dist/index.js`)) {
      throw new Error(`${b.name}: no ${b.root}/dist/index.js (run npm run build there)`);
    }
    const dir = `${b.root}/.tmp/ab-${b.name}-${process.pid}`;
    cpSync(`${b.root}/dist`, dir, { recursive: true });
    copies.push(dir);
    b.url = pathToFileURL(`${dir}/index.js`).href;
  }
  return () => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
}

/**
 * One contender per (contender, build), named `contender@build`, with `.base` and `.build`.
 * Only contenders whose file exports `contenderOf` (the stopstream ones) take a build.
 */
export async function contendersOf(names, builds) {
  const out = [];
  for (const name of names) {
    const { contenderOf } = await import(`../workers/${name}.mjs`);
    if (!contenderOf) throw new Error(`${name}: not a stopstream contender, no build to choose`);
    for (const b of builds) {
      const c = contenderOf(await loadStopstream(b.url), `${name}@${b.name}`);
      if (c.unavailable) throw new Error(`${c.name}: ${c.unavailable}`);
      out.push(Object.assign(c, { base: name, build: b.name }));
    }
  }
  return out;
}

/**
 * Per build, against the first: the ratio of medians, and the 10th–90th percentile of the
 * per-round ratios (round r of the build over round r of the first) — the spread the noise
 * gives it. `rounds[build]` are the samples of one metric, one per round.
 */
export function ratios(rounds, first) {
  const out = {};
  for (const [build, values] of Object.entries(rounds)) {
    const per = values.map((v, r) => v / rounds[first][r]);
    out[build] = {
      median: median(values),
      min: Math.min(...values),
      ratio: median(values) / median(rounds[first]),
      p10: percentile(per, 10),
      p90: percentile(per, 90),
    };
  }
  return out;
}

/** Prints `ratios()` of one metric, one line per build. */
export function printRatios(label, table, unit = "ms") {
  for (const [build, r] of Object.entries(table)) {
    process.stdout.write(
      `  ${label.padEnd(28)} ${build.padEnd(8)} median ${r.median.toFixed(3)} ${unit}` +
        `  min ${r.min.toFixed(3)}  × first ${r.ratio.toFixed(3)}` +
        `  (per round ${r.p10.toFixed(3)}–${r.p90.toFixed(3)})\n`,
    );
  }
}
