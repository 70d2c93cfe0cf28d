// The conformance suite in a real browser: headless Chromium loads an ESM bundle of the library
// in a page served from one loopback origin and streams from the fault server on another, so
// CORS (preflight, exposed headers) is part of what is checked.
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  CHROMIUM_INSTALL_HINT,
  CHROMIUM_PATH,
  hasChromium,
  launchChromium,
} from "../support/chromium.ts";
import { createFaultHandler } from "../support/fault_handler.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { cases } from "../conformance/suite.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const outdir = `${root}.tmp/browser`;

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>stopstream conformance</title>
<script type="module">
  import * as lib from "./stopstream.js";
  import { cases } from "./suite.js";
  const byName = new Map(cases.map((c) => [c.name, c]));
  window.runCase = (name, origin) => byName.get(name).run({ lib, origin });
  window.lib = lib;
  window.ready = true;
</script>
`;

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".map": "application/json",
};

/** The library as a browser user gets it: one ES module bundled for `platform: "browser"`. */
async function buildPage(): Promise<void> {
  await mkdir(outdir, { recursive: true });
  const common = {
    absWorkingDir: root,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    sourcemap: true,
    logLevel: "warning",
  } as const;
  await build({ ...common, entryPoints: { stopstream: "src/index.ts" }, outdir });
  // The suite imports the library by type only, so this bundle holds the cases alone.
  await build({
    ...common,
    entryPoints: ["test/conformance/suite.ts"],
    outfile: `${outdir}/suite.js`,
  });
  await writeFile(`${outdir}/index.html`, PAGE);
}

async function serveStatic(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/^\/$/, "/index.html");
  const ext = path.slice(path.lastIndexOf("."));
  if (!/^\/[\w.-]+$/.test(path) || TYPES[ext] === undefined) {
    return new Response("not found", { status: 404 });
  }
  try {
    return new Response(await readFile(`${outdir}${path}`), {
      headers: { "content-type": TYPES[ext] },
    });
  } catch {
    return new Response("not found", { status: 404 });
  }
}

if (!hasChromium()) {
  console.warn(
    `\n!!! BROWSER CHECK SKIPPED: no Chromium at ${CHROMIUM_PATH}. ` +
      `Install it with: ${CHROMIUM_INSTALL_HINT}\n`,
  );
}

describe.skipIf(!hasChromium())("conformance in headless Chromium", () => {
  const faults = createFaultHandler({ wordDelayMs: 1 });
  let faultServer: NodeServer;
  let pageServer: NodeServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    await buildPage();
    [faultServer, pageServer, browser] = await Promise.all([
      startNodeServer(faults.handler),
      startNodeServer(serveStatic),
      launchChromium(),
    ]);
    page = await browser.newPage();
    page.on("pageerror", (error) => pageErrors.push(String(error)));
    await page.goto(`${pageServer.url}/`);
    await page.waitForFunction(() => (globalThis as { ready?: boolean }).ready === true);
  });

  afterAll(async () => {
    await browser?.close();
    await Promise.all([faultServer?.close(), pageServer?.close()]);
  });

  test("the page and the fault server are on different origins", () => {
    expect(new URL(pageServer.url).origin).not.toBe(new URL(faultServer.url).origin);
    expect(pageErrors).toEqual([]);
  });

  for (const c of cases) {
    test(c.name, async () => {
      await page.evaluate(
        ([name, origin]) =>
          (globalThis as unknown as { runCase(n: string, o: string): Promise<void> })
            .runCase(name, origin),
        [c.name, faultServer.url] as const,
      );
      expect(pageErrors).toEqual([]);
    });
  }
});
