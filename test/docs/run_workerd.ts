/**
 * Workers in workerd, through Miniflare (the simulator `wrangler dev` runs, taken from the
 * installed wrangler so both use the same one), with the compatibility date, flags and vars of
 * wrangler.toml. Two uses: a Worker example answers one request, and the relay Worker itself
 * (what `npm start` serves) listens on a loopback port for the examples that call it.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Readable } from "node:stream";
import { bundleForWorkerd, ROOT } from "./bundle.ts";

interface MiniflareLike {
  ready: Promise<URL>;
  dispatchFetch(url: string, init?: RequestInit): Promise<Response>;
  dispose(): Promise<void>;
}
type MiniflareClass = new (options: Record<string, unknown>) => MiniflareLike;

let miniflare: Promise<MiniflareClass> | undefined;
function loadMiniflare(): Promise<MiniflareClass> {
  const fromWrangler = createRequire(
    createRequire(import.meta.url).resolve("wrangler/package.json"),
  );
  miniflare ??= import(fromWrangler.resolve("miniflare")).then((m) => m.Miniflare);
  return miniflare;
}

/** wrangler.toml's `compatibility_date`, `compatibility_flags` and `[vars]`. */
function wranglerSettings(): {
  compatibilityDate: string;
  compatibilityFlags: string[];
  vars: Record<string, string>;
} {
  const toml = readFileSync(`${ROOT}wrangler.toml`, "utf8");
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  if (date === undefined) throw new Error("wrangler.toml has no compatibility_date");
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1] ?? "";
  const vars: Record<string, string> = {};
  const section = /^\[vars\]\n([\s\S]*?)(?:^\[|(?![\s\S]))/m.exec(toml)?.[1] ?? "";
  for (const [, name, value] of section.matchAll(/^(\w+)\s*=\s*"([^"]*)"/gm)) {
    vars[name as string] = value as string;
  }
  return {
    compatibilityDate: date,
    compatibilityFlags: [...flags.matchAll(/"([^"]+)"/g)].map((m) => m[1] as string),
    vars,
  };
}

/**
 * The `STREAMS` Durable Object binding of wrangler.toml (class `RelayStream`, SQLite-backed),
 * for a Worker that exports the class: resumable streams, in memory.
 */
const STREAMS = { STREAMS: { className: "RelayStream", useSQLite: true } };

/** What a Worker example answered to one request. */
export interface WorkerAnswer {
  status: number;
  contentType: string;
  /** The `x-stopstream-stream-id` header: the answer is a resumable stream. */
  streamId: string | null;
  body: string;
  /** The body did not end within the time limit. */
  hung: boolean;
}

/**
 * Runs a Worker example (its default export) in workerd and sends it one request, reading the
 * whole answer. A body that never ends is cut off at `timeoutMs` and reported as hung.
 */
export async function runWorkerExample(
  source: string,
  request: { path: string; init: RequestInit },
  bindings: Record<string, string>,
  timeoutMs: number,
): Promise<WorkerAnswer> {
  const Miniflare = await loadMiniflare();
  const { compatibilityDate, compatibilityFlags } = wranglerSettings();
  const mf = new Miniflare({
    modules: true,
    script: await bundleForWorkerd({ source }),
    compatibilityDate,
    compatibilityFlags,
    bindings,
    ...(/\bRelayStream\b/.test(source) ? { durableObjects: STREAMS } : {}),
  });
  try {
    const controller = new AbortController();
    let hung = false;
    const timer = setTimeout(() => {
      hung = true;
      controller.abort();
    }, timeoutMs);
    try {
      const response = await mf.dispatchFetch(`http://example.test${request.path}`, {
        ...request.init,
        signal: controller.signal,
      });
      const body = await response.text().catch(() => "");
      return {
        status: response.status,
        contentType: response.headers.get("content-type") ?? "",
        streamId: response.headers.get("x-stopstream-stream-id"),
        body,
        hung,
      };
    } catch (error) {
      if (hung) return { status: 0, contentType: "", streamId: null, body: "", hung };
      throw error;
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await mf.dispose();
  }
}

/**
 * workerd's log of a caller that closed its connection while the relay wrote to it (a docs
 * example drops one on purpose to show a resume), stack line included.
 */
const CALLER_GONE =
  /^[^\n]*error: [^\n]*disconnected: ::write\(fd, buffer\.begin\(\), buffer\.size\(\)\): Broken pipe\nstack: [^\n]*\n/gm;

/** workerd's output, passed on as it comes, without the lines above. */
function quietStdio(stdout: Readable, stderr: Readable): void {
  stdout.pipe(process.stdout);
  stderr.setEncoding("utf8").on("data", (text: string) => {
    const kept = text.replace(CALLER_GONE, "");
    if (kept !== "") process.stderr.write(kept);
  });
}

/** The relay Worker (src/apps/worker/worker.ts), as `npm start` runs it, on a loopback port. */
export async function startRelay(): Promise<{ url: string; stop(): Promise<void> }> {
  const Miniflare = await loadMiniflare();
  const { compatibilityDate, compatibilityFlags, vars } = wranglerSettings();
  const mf = new Miniflare({
    modules: true,
    script: await bundleForWorkerd({ file: `${ROOT}src/apps/worker/worker.ts` }),
    compatibilityDate,
    compatibilityFlags,
    bindings: vars,
    durableObjects: STREAMS,
    handleRuntimeStdio: quietStdio,
    host: "127.0.0.1",
    port: 0,
  });
  const url = (await mf.ready).origin;
  return { url, stop: () => mf.dispose() };
}
