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

/**
 * The library as a browser user gets it: ES modules bundled for `platform: "browser"`, the
 * entry and the chunks it loads on first use.
 */
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
  // Split as an app's bundler splits it: a lazily loaded decoder is a chunk the page fetches.
  await build({
    ...common,
    entryPoints: { stopstream: "src/index.ts" },
    splitting: true,
    outdir,
  });
  // The suite imports the library by type only, so this bundle holds the cases alone.
  await build({
    ...common,
    entryPoints: ["test/conformance/suite.ts"],
    outfile: `${outdir}/suite.js`,
  });
  await writeFile(`${outdir}/index.html`, PAGE);
}

/** Files the page server answers 404 for, as a deployment that lost a chunk would. */
const missing: RegExp[] = [];

async function serveStatic(request: Request): Promise<Response> {
  const path = new URL(request.url).pathname.replace(/^\/$/, "/index.html");
  if (missing.some((pattern) => pattern.test(path))) return new Response("gone", { status: 404 });
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

  /**
   * Runs `body` in a fresh page (its own module map: nothing loaded on first use yet) whose
   * server answers 404 for the files `gone` matches, as a deployment that lost a chunk would.
   */
  async function withMissingChunk<T>(gone: RegExp, body: (fresh: Page) => Promise<T>): Promise<T> {
    const fresh = await browser.newPage();
    missing.push(gone);
    try {
      await fresh.goto(`${pageServer.url}/`);
      await fresh.waitForFunction(() => (globalThis as { ready?: boolean }).ready === true);
      return await body(fresh);
    } finally {
      missing.length = 0;
      await fresh.close();
    }
  }

  test("the page and the fault server are on different origins", () => {
    expect(new URL(pageServer.url).origin).not.toBe(new URL(faultServer.url).origin);
    expect(pageErrors).toEqual([]);
  });

  test("a decoder chunk that fails to download is a ConnectionError with its cause; nothing is sent", async () => {
    const outcome = await withMissingChunk(
      /^\/anthropic_decoder-/,
      (fresh) =>
        fresh.evaluate(async () => {
          const lib = (globalThis as unknown as { lib: typeof import("../../src/index.ts") }).lib;
          let requests = 0;
          const error = await lib.streamChat({
            baseURL: "https://provider.invalid/v1",
            protocol: "anthropic-messages",
            body: { model: "m", max_tokens: 8, messages: [] },
            fetch: () => {
              requests++;
              return Promise.reject(new Error("no request may be sent"));
            },
            maxRetries: 1,
            retry: { initialDelayMs: 1, maxDelayMs: 2 },
          }).result.then(() => undefined, (e: Error & { attempts?: number }) => e);
          return {
            name: error?.name,
            cause: (error?.cause as Error | undefined)?.name,
            attempts: error?.attempts,
            requests,
          };
        }),
    );
    expect(outcome).toEqual({
      name: "ConnectionError",
      cause: "TypeError",
      attempts: 2,
      requests: 0,
    });
  });

  test("a resume-client chunk that fails to download: the drop ends the call as an unresumable stream would", async () => {
    const outcome = await withMissingChunk(/^\/resume-/, (fresh) =>
      fresh.evaluate(async () => {
        const lib = (globalThis as unknown as { lib: typeof import("../../src/index.ts") }).lib;
        const requests: string[] = [];
        const encoder = new TextEncoder();
        const event = (id: number, content: string) =>
          encoder.encode(
            `id: ${id}\ndata: ${
              JSON.stringify({ choices: [{ index: 0, delta: { content } }] })
            }\n\n`,
          );
        const stream = lib.streamChat({
          baseURL: "https://relay.invalid/v1",
          body: { model: "m", messages: [] },
          fetch: (input, init) => {
            requests.push(new Request(input, init).method);
            const pieces = [event(1, "Hel"), event(2, "lo")];
            return Promise.resolve(
              new Response(
                new ReadableStream({
                  pull(controller) {
                    const next = pieces.shift();
                    if (next !== undefined) controller.enqueue(next);
                    else controller.error(new TypeError("network connection lost"));
                  },
                }),
                {
                  headers: {
                    "content-type": "text/event-stream",
                    "x-stopstream-stream-id": "strm_b1",
                  },
                },
              ),
            );
          },
          retry: { initialDelayMs: 1, maxDelayMs: 2 },
        });
        let text = "";
        try {
          for await (const e of stream) if (e.type === "text") text += e.text;
        } catch (error) {
          const e = error as Error & { partial?: { content: string } };
          return { text, name: e.name, cause: (e.cause as Error).name, requests };
        }
        return { text, name: "none", cause: "none", requests };
      }));
    // The text reached the caller, so only a resume could go on: the call ends with it kept.
    expect(outcome).toEqual({
      text: "Hello",
      name: "PartialStreamError",
      cause: "ConnectionError",
      requests: ["POST"],
    });
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
