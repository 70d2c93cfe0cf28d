// Refreshes docs/playground.png from a real run: the relay as `npm start` serves it (the demo
// model), headless Chromium (playwright-core, Debian's /usr/bin/chromium or CHROMIUM_PATH), one
// call whose first request gets a 503 and whose second gets a 429 with Retry-After: 1 s, shot
// once the answer is done.
//
//   node scripts/playground-screenshot.mjs [output.png]

import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { startRelay } from "./start.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const output = process.argv[2] ?? `${ROOT}docs/playground.png`;
const FAULT = process.env.FAULT ?? "attempt1=status:503,attempt2=status:429;retry-after:1";

const relay = await startRelay({ port: 0, envFile: `${ROOT}test/e2e/empty.env` });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
});
try {
  const page = await browser.newPage({
    viewport: { width: 940, height: 400 },
    colorScheme: "light",
  });
  await page.goto(`${relay.url}/`);
  await page.fill("#prompt", "What is stopstream for?");
  await page.selectOption("#fault", FAULT);
  await page.click("#send");
  await page.waitForSelector('#status[data-state="done"]', { timeout: 30_000 });
  await page.screenshot({ path: output, fullPage: true });
  console.log(`wrote ${output}`);
} finally {
  await browser.close();
  await relay.stop();
}
