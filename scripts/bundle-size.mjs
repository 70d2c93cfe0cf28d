// How big stopstream is in a browser or edge bundle, next to the SDKs it is compared with, all
// measured one way: the package's whole public entry bundled by esbuild with code splitting
// (minified, ESM, browser platform), each output file compressed on its own as a server sends it
// — gzip (level 9, as `gzip -9`) and brotli (quality 11) — and summed over the files an app
// loads. Sizes are in bytes; "KB" in the docs means 1000 bytes.
//
//   node scripts/bundle-size.mjs          the tables, and the core's modules
//   node scripts/bundle-size.mjs --json   the same as JSON
//
// The core (`mod.ts`, eventsource-parser included) loads what only some calls need through
// `import()` (src/lazy.ts): Anthropic's and the Responses API's decoders, and the
// resumable-stream client. So three figures: (a) what every app loads — the entry file and the
// chunks it imports (one file: the lazy modules get the core's helpers handed in, see
// src/core_kit.ts); an `openai-chat` app loads nothing else; (b) the entry plus one lazily
// loaded module's chunks — all that an app calling Anthropic (or the Responses API, or reading
// a resumable stream) loads; (c) every file. The budget, CORE_GZIP_LIMIT, is judged on (a): (b)
// and (c) may exceed it, and are reported. test/unit/bundle_size.test.ts fails `npm test` when
// (a) grows past the limit or is split into more than one file, and `npm run bench` reports
// every bundle in BENCHMARKS.md. The relay entry (`hono.ts`, Hono included) is reported for
// information.
import { build } from "esbuild";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/**
 * The most the core (`mod.ts`, minified, gzip -9) may weigh, in bytes, as an app that uses one
 * protocol loads it: the project's budget, judged on what every app loads (the entry's files),
 * enforced by `npm test`. (It was held by a ratchet while the core was over it: 18,600 B at
 * its largest, 15,941 B before the lazy modules got their helpers handed in and the
 * resumable-stream client became one of them; CHANGELOG.md has the steps.)
 */
export const CORE_GZIP_LIMIT = 15_000;

/**
 * What is measured. `entry` is a file of this repository; `package` an installed npm package,
 * bundled through `export * from "<package>"` (its whole public entry, as `mod.ts` is ours).
 */
export const BUNDLES = [
  { name: "stopstream core", entry: "mod.ts", limit: CORE_GZIP_LIMIT },
  { name: "stopstream relay", entry: "hono.ts" },
  { name: "openai SDK", package: "openai" },
  { name: "AI SDK", package: "ai" },
];

/**
 * Bundles one entry with code splitting and weighs it. Each output file is compressed on its own
 * (as a server sends it) and the files an app loads are summed:
 *
 * - `raw`, `gzip`, `brotli`, `files`: the entry and every chunk it imports statically — what
 *   every app loads (an `openai-chat` app of stopstream loads only this);
 * - `lazy`: per module loaded through `import()` (`module`), the entry plus that module's chunks
 *   (e.g. what an app that calls Anthropic loads in all);
 * - `all`: every output file, whatever is loaded;
 * - `modules`: each input's minified bytes (esbuild's metafile), largest first, files under
 *   node_modules/ summed per package, with `lazy` naming the module it is loaded with (absent:
 *   in the entry's files).
 *
 * @param {{ name: string, entry?: string, package?: string, limit?: number }} bundle
 */
export async function measureBundle(bundle) {
  const input = bundle.entry !== undefined ? { entryPoints: [bundle.entry] } : {
    stdin: {
      contents: `export * from ${JSON.stringify(bundle.package)};`,
      resolveDir: root,
      loader: "js",
    },
  };
  const result = await build({
    ...input,
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    splitting: true,
    outdir: "out",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const outputs = result.metafile.outputs;
  const weights = new Map();
  for (const file of result.outputFiles) {
    weights.set(relative(join(root, "out"), file.path), weigh(file.contents));
  }
  const name = (path) => path.slice("out/".length);
  /** `path` and every file it imports statically, as output names. */
  const closure = (path, into = new Set()) => {
    if (into.has(name(path))) return into;
    into.add(name(path));
    for (const i of outputs[path].imports) if (i.kind === "import-statement") closure(i.path, into);
    return into;
  };
  const paths = Object.keys(outputs);
  const entryPath = paths.find((path) =>
    outputs[path].entryPoint !== undefined &&
    !paths.some((other) =>
      outputs[other].imports.some((i) => i.kind === "dynamic-import" && i.path === path)
    )
  );
  const entry = closure(entryPath);
  const lazyPaths = paths.filter((path) =>
    path !== entryPath && outputs[path].entryPoint !== undefined
  );
  const sum = (files) => {
    const total = { files: files.size, raw: 0, gzip: 0, brotli: 0 };
    for (const file of files) {
      const w = weights.get(file);
      total.raw += w.raw;
      total.gzip += w.gzip;
      total.brotli += w.brotli;
    }
    return total;
  };
  const lazy = lazyPaths.map((path) => ({
    module: outputs[path].entryPoint,
    ...sum(closure(path, new Set(entry))),
  })).sort((a, b) => a.module.localeCompare(b.module));
  const byModule = new Map();
  for (const path of paths) {
    const owner = entry.has(name(path)) ? undefined : lazyOwner(path);
    for (const [input, { bytesInOutput }] of Object.entries(outputs[path].inputs)) {
      const key = packageOf(input) ?? input;
      const known = byModule.get(key) ?? { path: key, bytes: 0, lazy: owner };
      known.bytes += bytesInOutput;
      byModule.set(key, known);
    }
  }
  /** The lazily loaded module a chunk outside the entry goes with (the first that imports it). */
  function lazyOwner(path) {
    if (outputs[path].entryPoint !== undefined) return outputs[path].entryPoint;
    const by = lazyPaths.find((lazyPath) => closure(lazyPath).has(name(path)));
    return by === undefined ? undefined : outputs[by].entryPoint;
  }
  const modules = [...byModule.values()]
    .filter((m) => m.bytes > 0)
    .map((m) => (m.lazy === undefined ? { path: m.path, bytes: m.bytes } : m))
    .sort((a, b) => b.bytes - a.bytes);
  return {
    name: bundle.name,
    entry: bundle.entry ?? bundle.package,
    limit: bundle.limit,
    ...sum(entry),
    lazy,
    all: sum(new Set(weights.keys())),
    modules,
  };
}

/** One output file's raw, gzip -9 and brotli 11 bytes. */
function weigh(code) {
  const brotli = brotliCompressSync(code, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: code.length,
    },
  });
  return { raw: code.length, gzip: gzipSync(code, { level: 9 }).length, brotli: brotli.length };
}

/** `node_modules/hono/dist/…` → `hono` (scoped names keep their scope). */
function packageOf(path) {
  const at = path.lastIndexOf("node_modules/");
  if (at === -1) return undefined;
  const parts = path.slice(at + "node_modules/".length).split("/");
  return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

/** Every bundle of {@link BUNDLES}, measured in order. */
export async function measureAll() {
  const reports = [];
  for (const bundle of BUNDLES) reports.push(await measureBundle(bundle));
  return reports;
}

const bytes = (n) => n.toLocaleString("en");

/**
 * Why `report` is over `limit` (gzip bytes of what every app loads), naming the largest modules
 * in those files, or `undefined` when it is within it.
 *
 * @param {{ entry: string, raw: number, gzip: number, modules: Array<{ path: string, bytes: number }> }} report
 */
export function overLimit(report, limit, top = 8) {
  if (report.gzip <= limit) return undefined;
  const largest = report.modules.filter((m) => m.lazy === undefined).slice(0, top)
    .map((m) => `${m.path} ${bytes(m.bytes)}`);
  return `${report.entry} bundled and minified is ${bytes(report.gzip)} B gzip, ` +
    `${bytes(report.gzip - limit)} B over its ${bytes(limit)} B limit; largest modules ` +
    `(minified bytes of ${bytes(report.raw)}): ${largest.join(", ")}`;
}

/** A fixed-width text table of the reports, what the core's apps load, and its modules. */
function textReport(reports) {
  const core = reports[0];
  const row = (name, entry, r, width = 18) =>
    [
      name.padEnd(width),
      entry.padEnd(8),
      String(r.files).padStart(5),
      bytes(r.raw).padStart(9),
      bytes(r.gzip).padStart(9),
      bytes(r.brotli).padStart(9),
    ].join("  ");
  const lines = [
    "what every app loads (the entry and its chunks):",
    "bundle              entry     files     raw B    gzip B  brotli B  gzip × core",
    ...reports.map((r) =>
      `${row(r.name, r.entry, r)}  ${`${(r.gzip / core.gzip).toFixed(2)}×`.padStart(11)}`
    ),
    "",
    `${core.entry}, what an app loads in all:`,
    `${"".padEnd(30)}  ${"".padEnd(8)}  files     raw B    gzip B  brotli B`,
    row("the entry's files", "(a)", core, 30),
    ...core.lazy.map((l) => row(`+ ${l.module.replace(/^.*\//, "")}`, "(b)", l, 30)),
    row("every file", "(c)", core.all, 30),
    "",
    `${core.entry}: ${bytes(core.gzip)} B gzip up front of a ${bytes(core.limit)} B limit; ` +
    "minified bytes per module (lazy: loaded with that module):",
    ...core.modules.map((m) =>
      `${bytes(m.bytes).padStart(7)}  ${m.path}${m.lazy === undefined ? "" : `  (lazy: ${m.lazy})`}`
    ),
  ];
  return lines.join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const reports = await measureAll();
  if (process.argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`);
  } else {
    process.stdout.write(`${textReport(reports)}\n`);
  }
  const verdict = overLimit(reports[0], CORE_GZIP_LIMIT);
  if (verdict !== undefined) {
    process.stderr.write(`${verdict}\n`);
    process.exitCode = 1;
  }
}
