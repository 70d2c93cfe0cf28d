/**
 * HTML examples in headless Chromium. The page is the example as written, served by the
 * loopback upstream (Chromium keeps pages on public origins from calling loopback addresses);
 * its `https://esm.sh/stopstream@…` import is answered with this repository's browser build
 * (the same bundle the relay's playground serves), so the page needs no network.
 *
 * @module
 */

import type { Browser } from "playwright-core";
import { browserClient } from "./bundle.ts";

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
 * Loads the example as a page, waits for `expected` (the text the upstream streamed, once it
 * has streamed it), then until `#out` shows it, collecting page errors.
 */
export async function runPageExample(
  browser: Browser,
  url: string,
  expected: () => Promise<string>,
  timeoutMs: number,
): Promise<PageRun> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  try {
    await page.route(/^https:\/\/esm\.sh\/stopstream(@[^/]*)?$/, async (route) =>
      route.fulfill({
        contentType: "text/javascript",
        headers: { "access-control-allow-origin": "*" },
        body: await browserClient(),
      }));
    await page.goto(url);
    let hung = false;
    const deadline = AbortSignal.timeout(timeoutMs);
    const text = await Promise.race([
      expected(),
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
