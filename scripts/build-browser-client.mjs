// Bundles the stopstream client (src/index.ts) for browsers, so the relay's playground page can
// import it from the Worker (`GET /stopstream.js`). Workers cannot read files at runtime, so the
// bundle becomes a text module that wrangler embeds (its default rule for `*.txt`).
//
// Run by wrangler's `[build]` step (`wrangler dev`, `wrangler deploy`, and so `npm start`); the
// workers test config calls `bundleBrowserClient()` directly instead of reading the generated
// file. The output lives outside `src/`, the folder `wrangler dev` watches (`watch_dir`), so
// writing it never looks like a source change.
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const OUTPUT = ".wrangler/generated/stopstream.browser.js.txt";

/**
 * Bundle `src/index.ts` as one ES module for browsers and return its text.
 *
 * @returns {Promise<string>}
 */
export async function bundleBrowserClient() {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ["src/index.ts"],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    legalComments: "inline",
    banner: {
      js: "// stopstream browser build, bundled from src/index.ts for the relay playground.",
    },
  });
  return result.outputFiles[0].text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await bundleBrowserClient();
  const path = `${root}/${OUTPUT}`;
  await mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  const previous = await readFile(path, "utf8").catch(() => undefined);
  // Writing only on change leaves the bundle's mtime alone when nothing changed; write-then-
  // rename, so a second wrangler bundling at the same time never reads half a file.
  if (previous !== text) {
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, text);
    await rename(temporary, path);
  }
}
