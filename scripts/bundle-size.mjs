// How big stopstream is in a browser or edge bundle, next to the SDKs it is compared with, all
// measured one way: the package's whole public entry bundled by esbuild (minified, ESM, browser
// platform), then its raw, gzip (level 9, as `gzip -9`) and brotli (quality 11) bytes. Sizes
// are in bytes; "KB" in the docs means 1000 bytes.
//
//   node scripts/bundle-size.mjs          the table, and the core's largest modules
//   node scripts/bundle-size.mjs --json   the same as JSON
//
// The core (`mod.ts`: every module a user of `streamChat` gets, eventsource-parser included)
// has a limit, CORE_GZIP_LIMIT; test/unit/bundle_size.test.ts fails `npm test` above it, and
// `npm run bench` reports every bundle in BENCHMARKS.md. The relay entry (`hono.ts`, Hono
// included) is reported for information.
import { build } from "esbuild";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The most the core (`mod.ts`, minified, gzip -9) may weigh, in bytes: the project's budget. */
export const CORE_GZIP_LIMIT = 15_000;

/**
 * What `npm test` enforces today. While the core is being brought back under the budget it is a
 * ratchet at the measured size (it may only go down, but for a fix that needs the bytes, said in
 * its commit); it becomes CORE_GZIP_LIMIT once the core fits again, and then this constant goes
 * away. 18,200 → 18,600: the client-core review fixes (+456 B: a resumed stream's event count
 * +156, redirects with credentials or a 303 +92, reasoning_details by index +58, `onPartial:
 * "retry"` not iterable +52, the transport split +47, the rest +29). 18,600 → 18,100 (the
 * size work, each step's gzip saving in its commit): the options table -150, one connection-lost
 * sentence -51, shorter error sentences -167, shorter resume refusals -27, shared helpers -40,
 * finish-reason tables without identity entries -48, one Accumulator.identify -43, the shared
 * noop in SseFeed -3, Anthropic's one end of a message -19, a shorter edit distance -12; then
 * the relay's planCall seam and decoder onText hook +14: the core measures 18,028 B.
 */
export const CORE_GZIP_RATCHET = 18_100;

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
 * Bundles one entry and weighs it: `{ name, entry, raw, gzip, brotli, modules }`, where
 * `modules` lists each input's minified bytes in the output (esbuild's metafile), largest
 * first, files under node_modules/ summed per package.
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
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const code = result.outputFiles[0].contents;
  const output = Object.values(result.metafile.outputs)[0];
  const byModule = new Map();
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    const name = packageOf(path) ?? path;
    byModule.set(name, (byModule.get(name) ?? 0) + bytesInOutput);
  }
  const modules = [...byModule]
    .filter(([, bytes]) => bytes > 0)
    .map(([path, bytes]) => ({ path, bytes }))
    .sort((a, b) => b.bytes - a.bytes);
  const brotli = brotliCompressSync(code, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: code.length,
    },
  });
  return {
    name: bundle.name,
    entry: bundle.entry ?? bundle.package,
    limit: bundle.limit,
    raw: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotli.length,
    modules,
  };
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
 * Why `report` is over `limit` (gzip bytes), naming its largest modules, or `undefined` when
 * it is within it.
 *
 * @param {{ entry: string, raw: number, gzip: number, modules: Array<{ path: string, bytes: number }> }} report
 */
export function overLimit(report, limit, top = 8) {
  if (report.gzip <= limit) return undefined;
  const largest = report.modules.slice(0, top).map((m) => `${m.path} ${bytes(m.bytes)}`);
  return `${report.entry} bundled and minified is ${bytes(report.gzip)} B gzip, ` +
    `${bytes(report.gzip - limit)} B over its ${bytes(limit)} B limit; largest modules ` +
    `(minified bytes of ${bytes(report.raw)}): ${largest.join(", ")}`;
}

/** A fixed-width text table of the reports, and the core's modules. */
function textReport(reports) {
  const core = reports[0];
  const lines = [
    "bundle              entry      raw B    gzip B  brotli B  gzip × core",
    ...reports.map((r) =>
      [
        r.name.padEnd(18),
        r.entry.padEnd(8),
        bytes(r.raw).padStart(9),
        bytes(r.gzip).padStart(9),
        bytes(r.brotli).padStart(9),
        `${(r.gzip / core.gzip).toFixed(2)}×`.padStart(12),
      ].join("  ")
    ),
    "",
    `${core.entry}: ${bytes(core.gzip)} B gzip of a ${bytes(core.limit)} B limit; minified ` +
    "bytes per module:",
    ...core.modules.map((m) => `${bytes(m.bytes).padStart(7)}  ${m.path}`),
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
