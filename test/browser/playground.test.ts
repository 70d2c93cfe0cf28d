// The relay's playground in a real browser: headless Chromium opens the page the Worker serves
// under `wrangler dev`, streams with the browser build of stopstream, stops mid-stream, and
// survives a 503.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startWranglerDev, type WranglerDev } from "../e2e/wrangler_dev.ts";
import {
  CHROMIUM_INSTALL_HINT,
  CHROMIUM_PATH,
  hasChromium,
  launchChromium,
} from "../support/chromium.ts";

if (!hasChromium()) {
  console.warn(
    `\n!!! PLAYGROUND BROWSER CHECK SKIPPED: no Chromium at ${CHROMIUM_PATH}. ` +
      `Install it with: ${CHROMIUM_INSTALL_HINT}\n`,
  );
}

describe.skipIf(!hasChromium())("the relay playground in headless Chromium", () => {
  let relay: WranglerDev;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    [relay, browser] = await Promise.all([startWranglerDev(), launchChromium()]);
    page = await browser.newPage();
    page.on("pageerror", (error) => pageErrors.push(String(error)));
  });

  afterAll(async () => {
    await browser?.close();
    await relay?.stop();
  });

  async function send(prompt: string, fault: string): Promise<void> {
    await page.goto(`${relay.url}/`);
    await page.fill("#prompt", prompt);
    await page.selectOption("#fault", fault);
    await page.click("#send");
  }

  const state = (): Promise<string | undefined> =>
    page.$eval("#status", (el) => (el as HTMLElement).dataset.state);
  const answer = (): Promise<string> => page.$eval("#answer", (el) => el.textContent ?? "");

  test("a prompt streams tokens into the page, then the stream finishes", async () => {
    await send("Hello from Chromium", "");
    await page.waitForFunction(() =>
      (document.getElementById("answer")?.textContent ?? "").length > 0
    );
    await page.waitForSelector('#status[data-state="done"]');
    expect(await answer()).toMatch(/^You said: "Hello from Chromium"\./);
    expect(await page.textContent("#status")).toMatch(
      /done \(stop\).*first token \d+ ms · tokens \d+/,
    );
    expect(pageErrors).toEqual([]);
  });

  test("Stop ends the stream at once, mid-answer", async () => {
    await send("Stop me", "words=200");
    await page.waitForFunction(() =>
      (document.getElementById("answer")?.textContent ?? "").split(" ").length > 5
    );
    expect(await state()).toBe("streaming");
    const clicked = Date.now();
    await page.click("#stop");
    await page.waitForSelector('#status[data-state="stopped"]');
    expect(Date.now() - clicked).toBeLessThan(1_000);
    const words = (await answer()).split(" ").length;
    expect(words).toBeLessThan(200);
    expect(await page.isDisabled("#stop")).toBe(true);
    expect(await page.isEnabled("#send")).toBe(true);
    // "stopped" is only set when the page's `for await` ended with InterruptedError: the
    // stream is over, not merely hidden.
    expect(await page.textContent("#log")).toContain("stopped: the request was aborted");
    expect(pageErrors).toEqual([]);
  });

  test('"503 first": the relay retries and the answer arrives anyway', async () => {
    await send("Survive a 503", "attempt1=status:503");
    await page.waitForSelector('#status[data-state="done"]');
    expect(await answer()).toMatch(/^You said: "Survive a 503"\./);
    expect(await page.textContent("#log")).toContain(
      "the relay retried invisibly: 2 upstream requests",
    );
    expect(await page.textContent("#status")).toContain("relay upstream requests: 2");
    expect(pageErrors).toEqual([]);
  });

  test("a drop after 5 words shows the error as it happens, with the partial answer kept", async () => {
    await send("Drop me", "drop-after=5");
    await page.waitForSelector('#status[data-state="error"]');
    expect((await answer()).length).toBeGreaterThan(0);
    expect(await page.textContent("#status")).toContain("incomplete answer");
    // The error's own sentence, once: no chain of every hop's messages.
    const log = (await page.textContent("#log")) ?? "";
    expect(log).toContain(
      "stopstream: the provider reported an error after part of the answer had arrived; that " +
        "part is kept, and sending the request again gets a complete answer",
    );
    expect(log.match(/stopstream:/g)).toHaveLength(1);
  });
});
