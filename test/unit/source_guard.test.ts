// The source guard: everything the published package loads must run on Web APIs alone.
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { findNodeOnlyCode } from "../support/source_guard.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** The one place allowed to use Node: the terminal client. */
const NODE_ONLY = "src/apps/cli/";
const CODE = /\.(?:[cm]?[jt]s|tsx|jsx)$/;

async function guardedFiles(): Promise<string[]> {
  const entries = await readdir(`${root}src`, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile() && CODE.test(entry.name))
    .map((entry) => `${entry.parentPath}/${entry.name}`.slice(root.length))
    .filter((path) => !path.startsWith(NODE_ONLY));
  return ["mod.ts", "hono.ts", "demo.ts", ...files].sort();
}

describe("source guard", () => {
  test("nothing under src/ (except src/apps/cli/), mod.ts or hono.ts uses Node-only APIs", async () => {
    const files = await guardedFiles();
    expect(files).toContain("src/index.ts");
    expect(files).toContain("src/client/transport.ts");
    expect(files.some((path) => path.startsWith(NODE_ONLY))).toBe(false);
    const found: string[] = [];
    for (const path of files) {
      const source = await readFile(`${root}${path}`, "utf8");
      for (const v of findNodeOnlyCode(source)) found.push(`${path}:${v.line}: ${v.what}`);
    }
    expect(found, "Node-only code outside src/apps/cli/ (use Web APIs)").toEqual([]);
  });

  test.each([
    ['import "node:fs";', 'import of "node:fs"'],
    ['import { readFile } from "node:fs/promises";', 'import of "node:fs/promises"'],
    ["export { Buffer as B } from 'node:buffer';", "use of `Buffer`"],
    ['const fs = await import("node:fs");', 'import of "node:fs"'],
    ['import { join } from "path";', 'import of "path"'],
    ["import type { Socket } from 'net';", 'import of "net"'],
    ["const key = process.env.KEY;", "use of `process`"],
    ["const b = Buffer.from(text);", "use of `Buffer`"],
    ['const fs = require("fs");', "use of `require`"],
    ["const here = __dirname;", "use of `__dirname`"],
    ["const file = __filename;", "use of `__filename`"],
    ["const env = globalThis.process?.env;", "use of `process`"],
    ["const url = `${__dirname}/x`;", "use of `__dirname`"],
    ['const s = "a" + `b${process.pid}c`;', "use of `process`"],
    ["if (x) { y = `${a + `${Buffer.alloc(1)}`}`; }", "use of `Buffer`"],
  ])("flags %s", (snippet, what) => {
    expect(findNodeOnlyCode(snippet).map((v) => v.what)).toContain(what);
  });

  test.each([
    "// process.env is never read here, and Buffer is not used",
    "/* require() is CommonJS; __dirname does not exist in ESM */",
    '/** @example\n * import fs from "node:fs";\n */',
    'throw new TypeError("cannot process a Buffer; require a string");',
    "const text = `process ${name} with require`;",
    "const done = job.process(item); const n = this.Buffer;",
    "const options = { process: 1, require: true };",
    "const re = /process|Buffer/g; const q = /[/'\"]/;",
    'const url = "https://nodejs.org/api/fs.html"; // from "node:fs"',
    'import { streamChat } from "./stream_chat.ts";',
    'import { createParser } from "eventsource-parser";',
  ])("allows %s", (snippet) => {
    expect(findNodeOnlyCode(snippet)).toEqual([]);
  });

  test("reports the line of each violation", () => {
    const source = [
      "/**",
      " * process here is prose",
      " */",
      'const a = "x";',
      "const b = `multi",
      "line ${process.arch}`;",
      "",
      'import fs from "node:fs";',
    ].join("\n");
    expect(findNodeOnlyCode(source)).toEqual([
      { line: 6, what: "use of `process`" },
      { line: 8, what: 'import of "node:fs"' },
    ]);
  });
});
