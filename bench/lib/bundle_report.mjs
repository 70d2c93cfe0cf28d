// Bundle sizes in BENCHMARKS.md (results.bundles, from scripts/bundle-size.mjs): stopstream's
// core, an app of streamChat alone, and the relay entry next to the openai SDK and the AI SDK,
// measured the same way in the same run, the core's modules, and its size limit as a target.

const bytes = (n) => n.toLocaleString("en");
// Two decimals: the core is within a few bytes of its budget, where one decimal would round it up to it.
const kb = (n) => `${(n / 1000).toFixed(2)} KB`;

/** The size table and the core's per-module table. */
export function bundleTables(results) {
  const bundles = results.bundles;
  if (!Array.isArray(bundles) || bundles.length === 0) return [];
  const core = bundles[0];
  const tables = [
    {
      title: "Bundle size — each package's whole public entry, esbuild (bundle, minify, ESM, " +
        "browser) into one file, gzip -9, brotli 11",
      header: ["bundle", "entry", "raw B", "gzip B", "brotli B", "gzip × stopstream core"],
      rows: bundles.map((b) => [
        b.name,
        b.entry,
        bytes(b.raw),
        bytes(b.gzip),
        bytes(b.brotli),
        `${(b.gzip / core.gzip).toFixed(2)}×`,
      ]),
    },
  ];
  tables.push({
    title: `Bundle size — what the core (\`${core.entry}\`) is made of: minified bytes per ` +
      "module",
    header: ["module", "minified B"],
    rows: core.modules.map((m) => [m.path, bytes(m.bytes)]),
  });
  return tables;
}

/** The core's size limit, as a target check. */
export function bundleTargets(list, bundles) {
  const core = Array.isArray(bundles) ? bundles.find((b) => b.limit !== undefined) : undefined;
  if (core === undefined) return;
  list.push({
    target: `stopstream core (\`${core.entry}\`), everything it loads, ≤ ${
      bytes(core.limit)
    } B min+gzip`,
    scope: "bundle",
    measured: core.gzip,
    limit: core.limit,
    unit: "B",
    met: core.gzip <= core.limit,
  });
}

/** The headline sentence on size. */
export function bundleHeadline(results) {
  const bundles = results.bundles;
  if (!Array.isArray(bundles) || bundles.length === 0) return [];
  const named = (name) => bundles.find((b) => b.name === name);
  const core = bundles[0];
  const others = ["openai SDK", "AI SDK"].map(named).filter(Boolean)
    .map((b) => `${b.name} ${kb(b.gzip)}, ${(b.gzip / core.gzip).toFixed(1)}×`);
  const relay = named("stopstream relay");
  return [
    `Bundle size (min+gzip, each whole entry, same method): stopstream core ${
      kb(core.gzip)
    }, all three protocols${others.length > 0 ? ` (${others.join("; ")})` : ""}${
      relay === undefined ? "" : `; the relay entry, Hono included, ${kb(relay.gzip)}`
    }.`,
  ];
}
