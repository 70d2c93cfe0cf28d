/**
 * Headless Chromium for the browser checks: Debian's `chromium` package, driven by
 * playwright-core (which downloads no browser of its own).
 *
 * @module
 */

import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Where the browser is; `CHROMIUM_PATH` overrides it. */
export const CHROMIUM_PATH: string = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Quiet, sandbox-free headless flags: no GPU, no background traffic, no first-run UI. */
export const CHROMIUM_FLAGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** How to get the browser when it is missing (printed by the skip message). */
export const CHROMIUM_INSTALL_HINT = "apt-get update && apt-get install -y chromium";

/**
 * Whether the browser is installed.
 *
 * @example
 * ```ts
 * describe.skipIf(!hasChromium())("in Chromium", () => {});
 * ```
 */
export function hasChromium(): boolean {
  return existsSync(CHROMIUM_PATH);
}

/**
 * Launch the browser with {@link CHROMIUM_FLAGS}.
 *
 * @example
 * ```ts
 * const browser = await launchChromium();
 * const page = await browser.newPage();
 * await browser.close();
 * ```
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_FLAGS],
  });
}
