/**
 * The architecture as ARCHITECTURE.md draws it, checked on the source: one static module graph
 * without cycles, the library apart from its apps, the relay on the client's internal seam
 * only, no casts through `unknown`, no file too long to read in one sitting.
 */

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { cyclesOf, importsOf, reachable, readGraph } from "../support/source_graph.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const graph = await readGraph(root, "src");
const sources = new Map<string, string>();
for (const path of graph.keys()) sources.set(path, await readFile(`${root}${path}`, "utf8"));
const MAX_LINES = 250;

describe("the graph reader", () => {
  test("finds a cycle, however long, and none where there is none", () => {
    expect(cyclesOf(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]]]))).toEqual([
      ["a", "b", "c", "a"],
    ]);
    expect(cyclesOf(new Map([["a", ["b", "c"]], ["b", ["c"]], ["c", []]]))).toEqual([]);
  });

  test("reads static, type-only, re-exported and dynamic imports", () => {
    const source = 'import { a } from "./a.ts";\nimport type { B } from "../b.ts";\n' +
      'export * from "./c/d.ts";\nconst e = await import("./e.ts");\nimport "x";';
    expect(importsOf("src/x/y.ts", source).sort()).toEqual([
      "src/b.ts",
      "src/x/a.ts",
      "src/x/c/d.ts",
      "src/x/e.ts",
    ]);
  });
});

describe("src/", () => {
  test("has no import cycle (type-only imports included)", () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  test("is one static module graph: no dynamic import()", () => {
    const dynamic = [...sources].filter(([, source]) => /\bimport\s*\(/.test(source))
      .map(([path]) => path);
    expect(dynamic).toEqual([]);
  });

  test("has no cast through unknown", () => {
    const casts = [...sources].filter(([, source]) => /\bas unknown as\b/.test(source))
      .map(([path]) => path);
    expect(casts).toEqual([]);
  });

  test(`has no file over ${MAX_LINES} lines`, () => {
    const long = [...sources].map(([path, source]) => [path, source.split("\n").length - 1])
      .filter(([, lines]) => (lines as number) > MAX_LINES);
    expect(long).toEqual([]);
  });

  test("stopstream and stopstream/hono load nothing of the apps (demo, playground, CLI, Worker)", () => {
    for (const entry of ["src/index.ts", "src/relay/index.ts"]) {
      const loaded = [...reachable(graph, entry)];
      expect(loaded.length).toBeGreaterThan(10);
      expect(loaded.filter((path) => path.startsWith("src/apps/")), entry).toEqual([]);
    }
  });

  test("the client imports nothing of the relay; the relay reaches the client only through client/internal.ts", () => {
    const edges = [...graph].flatMap(([from, to]) => to.map((target) => [from, target]));
    const clientToRelay = edges.filter(([from, to]) =>
      /^src\/(core|protocols|client)\//.test(from!) && to!.startsWith("src/relay/")
    );
    expect(clientToRelay).toEqual([]);
    const relayToClient = edges.filter(([from, to]) =>
      from!.startsWith("src/relay/") && to!.startsWith("src/client/") &&
      to !== "src/client/internal.ts"
    );
    expect(relayToClient).toEqual([]);
  });

  test("the layers import downwards only: core ← protocols ← client ← relay ← apps", () => {
    const layers = ["src/core/", "src/protocols/", "src/client/", "src/relay/", "src/apps/"];
    // src/index.ts, stopstream's entry, stands beside the relay: it exports what it needs.
    const rank = (path: string) =>
      path === "src/index.ts" ? 3 : layers.findIndex((layer) => path.startsWith(layer));
    const upwards = [...graph].flatMap(([from, to]) =>
      to.filter((target) => rank(target) > rank(from)).map((target) => `${from} → ${target}`)
    );
    expect(upwards).toEqual([]);
  });
});
