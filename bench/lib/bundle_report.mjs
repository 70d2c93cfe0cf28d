// Bundle sizes in BENCHMARKS.md (results.bundles, from scripts/bundle-size.mjs): stopstream's
// core and relay entries next to the openai SDK and the AI SDK, measured the same way in the
// same run (code splitting; what an app loads up front), what an app of the core loads in all
// (its decoders load on first use), the core's modules, and its size limit as a target.

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
      title: "Bundle size — each package's whole public entry, esbuild (bundle, splitting, " +
        "minify, ESM, browser), gzip -9, brotli 11, each file compressed on its own; what an " +
        "app loads up front (the entry and the chunks it imports)",
      header: ["bundle", "entry", "files", "raw B", "gzip B", "brotli B", "gzip × stopstream core"],
      rows: bundles.map((b) => [
        b.name,
        b.entry,
        String(b.files ?? 1),
        bytes(b.raw),
        bytes(b.gzip),
        bytes(b.brotli),
        `${(b.gzip / core.gzip).toFixed(2)}×`,
      ]),
    },
  ];
  if (Array.isArray(core.lazy) && core.all !== undefined) {
    const row = (what, w) => [what, String(w.files), bytes(w.raw), bytes(w.gzip), bytes(w.brotli)];
    tables.push({
      title: `Bundle size — what an app loads of the core (\`${core.entry}\`) in all: (a) the ` +
        "entry's files, all an `openai-chat` app loads; (b) plus a decoder loaded on first use; " +
        `(c) every file. The ${bytes(core.limit)} B budget is judged on (a); (b) and (c) exceed it`,
      header: ["what is loaded", "files", "raw B", "gzip B", "brotli B"],
      rows: [
        row("(a) the entry's files", core),
        ...core.lazy.map((l) => row(`(b) + \`${l.module}\``, l)),
        row("(c) every file", core.all),
      ],
    });
  }
  tables.push({
    title: `Bundle size — what the core (\`${core.entry}\`) is made of: minified bytes per ` +
      "module, and the module it is loaded with when not up front",
    header: ["module", "minified B", "loaded"],
    rows: core.modules.map((m) => [
      m.path,
      bytes(m.bytes),
      m.lazy === undefined ? "up front" : `with \`${m.lazy}\``,
    ]),
  });
  return tables;
}

/** The core's size limit, as a target check. */
export function bundleTargets(list, bundles) {
  const core = Array.isArray(bundles) ? bundles.find((b) => b.limit !== undefined) : undefined;
  if (core === undefined) return;
  list.push({
    target: `stopstream core (\`${core.entry}\`), what every app loads, ≤ ${
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
  const lazy = Array.isArray(core.lazy) && core.lazy.length > 0
    ? ` up front, all an openai-chat app loads (with a decoder loaded on first use, an ` +
      `Anthropic or Responses app ${kb(Math.max(...core.lazy.map((l) => l.gzip)))} in all)`
    : "";
  return [
    `Bundle size (min+gzip, each whole entry, same method): stopstream core ${
      kb(core.gzip)
    }${lazy}${others.length > 0 ? ` (${others.join("; ")})` : ""}${
      relay === undefined ? "" : `; the relay entry, Hono included, ${kb(relay.gzip)}`
    }.`,
  ];
}
