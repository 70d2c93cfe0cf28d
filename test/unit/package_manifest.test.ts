// npm and JSR publish the same package: same version, same subpaths, same entry modules, same
// dependency versions. A drift here is a release that differs by registry.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const read = async (path: string) => JSON.parse(await readFile(`${root}${path}`, "utf8"));

interface NpmManifest {
  version: string;
  exports: Record<string, { types: string; default: string }>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  sideEffects: boolean;
  types: string;
}

interface DenoManifest {
  name: string;
  version: string;
  exports: Record<string, string>;
  imports: Record<string, string>;
}

const npm: NpmManifest = await read("package.json");
const deno: DenoManifest = await read("deno.json");

describe("package.json and deno.json", () => {
  test("declare the same version", () => {
    expect(deno.version).toBe(npm.version);
    expect(npm.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
  });

  test("export the same subpaths: ., ./hono and ./demo", () => {
    expect(Object.keys(npm.exports).sort()).toEqual(Object.keys(deno.exports).sort());
    expect(Object.keys(deno.exports).sort()).toEqual([".", "./demo", "./hono"]);
    expect(deno.name).toBe("@stopstream/stopstream");
  });

  test("each subpath points at the same source module on both registries", async () => {
    for (const [subpath, entry] of Object.entries(deno.exports)) {
      // The JSR entry is a thin re-export of one module under src/ …
      const text = await readFile(`${root}${entry}`, "utf8");
      const reexports = [...text.matchAll(/^export \* from "\.\/(src\/[\w/]+)\.ts";$/gm)];
      expect(reexports, `${entry} re-exports exactly one src module`).toHaveLength(1);
      const module = reexports[0]![1]!.replace(/^src\//, "");
      // … and the npm entry is that module's build output, types first.
      const target = npm.exports[subpath]!;
      expect(Object.keys(target), `${subpath}: "types" must come first`).toEqual([
        "types",
        "default",
      ]);
      expect(target).toEqual({ types: `./dist/${module}.d.ts`, default: `./dist/${module}.js` });
    }
    expect(npm.types).toBe(npm.exports["."]!.types);
  });

  test("the JSR import map pins the npm dependency versions", () => {
    expect(deno.imports["eventsource-parser"]).toBe(
      `npm:eventsource-parser@${npm.dependencies["eventsource-parser"]}`,
    );
    expect(deno.imports["hono"]).toBe(`npm:hono@${npm.devDependencies.hono}`);
  });

  test("hono is an optional peer and the package has no side effects", () => {
    expect(npm.peerDependencies.hono).toMatch(/^\^4\./); // the README: Hono 4 as a peer
    expect(npm.peerDependenciesMeta.hono?.optional).toBe(true);
    expect(npm.dependencies).not.toHaveProperty("hono");
    expect(npm.sideEffects).toBe(false);
  });

  test("eventsource-parser is the only runtime dependency (the README's promise)", () => {
    expect(Object.keys(npm.dependencies)).toEqual(["eventsource-parser"]);
    expect(npm).not.toHaveProperty("optionalDependencies");
    expect(Object.keys(npm.peerDependencies)).toEqual(["hono"]);
  });
});
