// How big stopstream is in a browser or edge bundle, next to the SDKs it is compared with, all
// measured one way: an entry bundled by esbuild into one file (minified, ESM, browser platform),
// compressed as a server sends it — gzip (level 9, as `gzip -9`) and brotli (quality 11). Sizes
// are in bytes; "KB" in the docs means 1000 bytes.
//
//   node scripts/bundle-size.mjs          the table, and the core's modules
//   node scripts/bundle-size.mjs --json   the same as JSON
//
// The core is one static module graph: `mod.ts` is everything an app of stopstream loads, all
// three protocols included, and CORE_GZIP_LIMIT is judged on it (test/unit/bundle_size.test.ts
// fails `npm test` past it). Also reported: an app that imports only `streamChat` and calls
// `openai-chat` (what tree-shaking leaves of the core), and the relay entry (`hono.ts`, Hono
// included), for information.
import { build } from "esbuild";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The most everything `mod.ts` loads may weigh (minified, gzip -9), in bytes. */
export const CORE_GZIP_LIMIT = 20_000;

/** An app that imports only `streamChat` and calls `openai-chat`. */
const STREAM_CHAT_APP = `import { streamChat } from "./mod.ts";
export const ask = (body) =>
  streamChat({ baseURL: "https://api.openai.com/v1", protocol: "openai-chat", body });`;

/**
 * What is measured. `entry` is a file of this repository, `app` the source of an app next to
 * `mod.ts`, `package` an installed npm package bundled through `export * from "<package>"` (its
 * whole public entry, as `mod.ts` is ours).
 */
export const BUNDLES = [
  { name: "stopstream core", entry: "mod.ts", limit: CORE_GZIP_LIMIT },
  { name: "streamChat, openai-chat only", app: STREAM_CHAT_APP },
  { name: "stopstream relay", entry: "hono.ts" },
  { name: "openai SDK", package: "openai" },
  { name: "AI SDK", package: "ai" },
];

/**
 * Bundles one entry into one file and weighs it: `raw`, `gzip`, `brotli`, and `modules`, each
 * input's minified bytes (esbuild's metafile), largest first, files under node_modules/ summed
 * per package.
 *
 * @param {{ name: string, entry?: string, app?: string, package?: string, limit?: number }} bundle
 */
export async function measureBundle(bundle) {
  const contents = bundle.app ?? `export * from ${JSON.stringify(bundle.package)};`;
  const input = bundle.entry !== undefined
    ? { entryPoints: [bundle.entry] }
    : { stdin: { contents, resolveDir: root, loader: "js", sourcefile: "app.js" } };
  const result = await build({
    ...input,
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    outfile: "out.js",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const [file] = result.outputFiles;
  const byModule = new Map();
  for (const output of Object.values(result.metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const key = packageOf(path) ?? path;
      byModule.set(key, (byModule.get(key) ?? 0) + bytesInOutput);
    }
  }
  const modules = [...byModule]
    .filter(([, bytes]) => bytes > 0)
    .map(([path, bytes]) => ({ path, bytes }))
    .sort((a, b) => b.bytes - a.bytes);
  return {
    name: bundle.name,
    entry: bundle.entry ?? bundle.package ?? "app",
    limit: bundle.limit,
    files: result.outputFiles.length,
    ...weigh(file.contents),
    modules,
  };
}

/** Raw, gzip -9 and brotli 11 bytes. */
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
 * Why `report` is over `limit` (gzip bytes), naming its largest modules, or `undefined` when it
 * is within it.
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

/** A fixed-width text table of the reports and the core's modules. */
function textReport(reports) {
  const core = reports[0];
  const lines = [
    "bundle                          entry        raw B    gzip B  brotli B  gzip × core",
    ...reports.map((r) =>
      [
        r.name.padEnd(30),
        r.entry.padEnd(8),
        bytes(r.raw).padStart(9),
        bytes(r.gzip).padStart(9),
        bytes(r.brotli).padStart(9),
        `${(r.gzip / core.gzip).toFixed(2)}×`.padStart(11),
      ].join("  ")
    ),
    "",
    `${core.entry}: ${bytes(core.gzip)} B gzip of a ${bytes(core.limit)} B limit; ` +
    "minified bytes per module:",
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
