/**
 * One relay under `npm start` and one headless Chromium for a `describe` block of playground
 * checks: each test's browser context is closed after it, and any error a page threw fails it.
 *
 * @module
 */

import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { launchChromium } from "./chromium.ts";
import { type StartedRelay, startRelay } from "./npm_start.ts";

export interface PlaygroundBrowser {
  /** The relay's base URL (`http://127.0.0.1:<port>`). */
  readonly url: string;
  /** A fresh context (its own sessionStorage), closed after the test. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** Records the page's uncaught errors: the test fails on any. */
  watch(page: Page): Page;
}

/**
 * Registers the hooks of the enclosing `describe`; call it at the top of the block.
 *
 * @example
 * ```ts
 * const playground = usePlaygroundBrowser();
 * const page = playground.watch(await (await playground.newContext()).newPage());
 * ```
 */
export function usePlaygroundBrowser(): PlaygroundBrowser {
  let relay: StartedRelay | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let pageErrors: string[] = [];

  beforeAll(async () => {
    [relay, browser] = await Promise.all([startRelay(), launchChromium()]);
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
    expect(pageErrors).toEqual([]);
    pageErrors = [];
  });
  afterAll(async () => {
    await browser?.close();
    await relay?.stop();
  });

  return {
    get url() {
      if (relay === undefined) throw new Error("the relay has not started");
      return relay.url;
    },
    async newContext(options) {
      if (browser === undefined) throw new Error("Chromium has not started");
      context = await browser.newContext(options);
      return context;
    },
    watch(page) {
      page.on("pageerror", (error) => pageErrors.push(String(error)));
      return page;
    },
  };
}
