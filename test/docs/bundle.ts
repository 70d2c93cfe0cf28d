/**
 * esbuild for the examples: each is bundled from source with `stopstream` and `stopstream/hono`
 * resolved to this repository's entry points, so an example runs against the code it
 * documents, with nothing to build first.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
// @ts-expect-error: a plain .mjs build script without type declarations.
import { bundleBrowserClient } from "../../scripts/build-browser-client.mjs";

/** The repository root, with a trailing slash. */
export const ROOT: string = fileURLToPath(new URL("../..", import.meta.url));

/** `import … from "stopstream"` (`/hono`, `/demo`) → mod.ts, hono.ts, demo.ts of this repository. */
const thisPackage: Plugin = {
  name: "stopstream-from-source",
  setup(b) {
    b.onResolve({ filter: /^stopstream(\/hono|\/demo)?$/ }, (args) => ({
      path: `${ROOT}${
        args.path === "stopstream" ? "mod" : args.path.slice("stopstream/".length)
      }.ts`,
    }));
  },
};

/**
 * Wrangler embeds `*.txt` imports as strings; the relay Worker imports the playground's browser
 * bundle that way, so it is built here as wrangler's `[build]` step would.
 */
const textModules: Plugin = {
  name: "text-modules",
  setup(b) {
    b.onResolve({ filter: /\.txt$/ }, (args) => ({
      path: `${args.resolveDir}/${args.path}`,
      namespace: "text",
    }));
    b.onLoad({ filter: /.*/, namespace: "text" }, async (args) => ({
      contents: args.path.endsWith("stopstream.browser.js.txt")
        ? await browserClient()
        : readFileSync(args.path, "utf8"),
      loader: "text",
    }));
  },
};

let browserBundle: Promise<string> | undefined;
/** The ESM browser build of the client (what the playground and a CDN serve), built once. */
export function browserClient(): Promise<string> {
  browserBundle ??= bundleBrowserClient() as Promise<string>;
  return browserBundle;
}

/**
 * A Node ES module from an example's TypeScript or JavaScript: this package is bundled from
 * source, other packages stay imports (resolved from the repository's node_modules).
 */
export async function bundleForNode(source: string): Promise<string> {
  const result = await build({
    stdin: { contents: source, loader: "ts", resolveDir: ROOT, sourcefile: "example.ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    plugins: [thisPackage],
    write: false,
    logLevel: "silent",
  });
  return (result.outputFiles[0] as { text: string }).text;
}

/** A Worker module (one file, everything bundled; `cloudflare:` modules are the runtime's). */
export async function bundleForWorkerd(
  entry: { source: string } | { file: string },
): Promise<string> {
  const result = await build({
    ...("source" in entry
      ? {
        stdin: { contents: entry.source, loader: "ts", resolveDir: ROOT, sourcefile: "worker.ts" },
      }
      : { entryPoints: [entry.file] }),
    bundle: true,
    platform: "neutral",
    format: "esm",
    target: "es2022",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*"],
    plugins: [thisPackage, textModules],
    write: false,
    logLevel: "silent",
  });
  return (result.outputFiles[0] as { text: string }).text;
}
