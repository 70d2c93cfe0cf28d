/**
 * HTML examples in headless Chromium. The page is the example as written, served by the
 * loopback upstream (Chromium keeps pages on public origins from calling loopback addresses).
 * Every request it makes off this machine fails: a page that imports stopstream from a CDN
 * fails here as it does for a reader before the package is on npm, so an example loads a local
 * build (the relay's `/stopstream.js`).
 *
 * @module
 */

import type { Browser, Page } from "playwright-core";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/;

/** What the page did. */
export interface PageRun {
  /** Uncaught errors and `console.error` lines. */
  errors: string[];
  /** `#out`'s text once the page's output settled on the expected text, or when it gave up. */
  output: string;
  /** The page's output did not reach the expected text within the time limit. */
  hung: boolean;
}

/**
 * Loads the example as a page, waits for `expected` (the text the server streamed, once it has
 * streamed it; called before the page loads), then until `#out` shows it, collecting page errors.
 */
export async function runPageExample(
  browser: Browser,
  url: string,
  expected: (page: Page) => Promise<string>,
  timeoutMs: number,
): Promise<PageRun> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  try {
    await page.route((target) => !LOOPBACK.test(target.hostname), (route) => route.abort());
    const streamed = expected(page).catch(() => undefined);
    await page.goto(url);
    let hung = false;
    const deadline = AbortSignal.timeout(timeoutMs);
    const text = await Promise.race([
      streamed,
      new Promise<undefined>((resolve) => {
        deadline.addEventListener("abort", () => resolve(undefined), { once: true });
      }),
    ]);
    if (text === undefined) hung = true;
    else {
      await page.waitForFunction(
        (text) => document.querySelector("#out")?.textContent === text,
        text,
        { timeout: timeoutMs },
      ).catch(() => {
        hung = true;
      });
    }
    const output = await page.evaluate(() => document.querySelector("#out")?.textContent ?? "");
    return { errors, output, hung };
  } finally {
    await page.close();
  }
}
