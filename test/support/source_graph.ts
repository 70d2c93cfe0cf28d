/**
 * The import graph of `src/`, read from the source: every relative `import`, `export … from`
 * and `import()` (type-only ones included), for the tests that keep the architecture as
 * ARCHITECTURE.md draws it.
 *
 * @module
 */

import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";

/** `path` (relative to the repository) → the repository paths it imports. */
export type ImportGraph = Map<string, string[]>;

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)(["'])(\.{1,2}\/[^"']+)\1/g;

/**
 * The relative imports of one module's source, resolved against `path`.
 *
 * @example
 * ```ts
 * importsOf("src/a.ts", 'import { b } from "./b.ts";'); // ["src/b.ts"]
 * ```
 */
export function importsOf(path: string, source: string): string[] {
  const found = new Set<string>();
  for (const match of source.matchAll(SPECIFIER)) {
    found.add(join(dirname(path), match[2]!).split("\\").join("/"));
  }
  return [...found];
}

/**
 * Every `.ts` file under `folder` of `root`, with its imports.
 *
 * @example
 * ```ts
 * const graph = await readGraph(root, "src");
 * ```
 */
export async function readGraph(root: string, folder: string): Promise<ImportGraph> {
  const entries = await readdir(join(root, folder), { recursive: true, withFileTypes: true });
  const graph: ImportGraph = new Map();
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
    const path = relative(root, join(entry.parentPath, entry.name)).split("\\").join("/");
    graph.set(path, importsOf(path, await readFile(join(root, path), "utf8")));
  }
  return graph;
}

/**
 * The import cycles of `graph`, each as the list of modules around it (the first repeated
 * at the end), one per strongly connected set of modules.
 *
 * @example
 * ```ts
 * cyclesOf(new Map([["a", ["b"]], ["b", ["a"]]])); // [["a", "b", "a"]]
 * ```
 */
export function cyclesOf(graph: ImportGraph): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      const seen = state.get(next);
      if (seen === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (seen === undefined) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/**
 * Every module `entry` reaches through its imports, itself included.
 *
 * @example
 * ```ts
 * reachable(graph, "src/index.ts").has("src/client/stream_chat.ts"); // true
 * ```
 */
export function reachable(graph: ImportGraph, entry: string): Set<string> {
  const seen = new Set<string>();
  const walk = (node: string): void => {
    if (seen.has(node)) return;
    seen.add(node);
    for (const next of graph.get(node) ?? []) walk(next);
  };
  walk(entry);
  return seen;
}
