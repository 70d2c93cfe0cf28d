// The playground's protocol picker in a real browser: headless Chromium opens the page the Worker
// serves under `npm start` (the demo model), picks each protocol, and sends. The page's own
// requests, seen by the browser, say which route it called and in which shape; the page says
// what came back. Every check waits for a state of the page, never for time to pass.
import type { Page, Request } from "playwright-core";
import { describe, expect, test } from "vitest";
import { CHROMIUM_INSTALL_HINT, CHROMIUM_PATH, hasChromium } from "../support/chromium.ts";
import { usePlaygroundBrowser } from "../support/playground_browser.ts";

/** Each option of the picker: the route it calls and a field only its request shape has. */
const PROTOCOLS = [
  { protocol: "openai-chat", route: "/v1/chat/completions", shape: "stream_options" },
  { protocol: "anthropic-messages", route: "/v1/messages", shape: "max_tokens" },
  { protocol: "openai-responses", route: "/v1/responses", shape: "input" },
] as const;

if (!hasChromium()) {
  console.warn(
    `\n!!! PLAYGROUND PROTOCOL CHECK SKIPPED: no Chromium at ${CHROMIUM_PATH}. ` +
      `Install it with: ${CHROMIUM_INSTALL_HINT}\n`,
  );
}

describe.skipIf(!hasChromium())("the playground's protocol picker in headless Chromium", () => {
  const playground = usePlaygroundBrowser();

  /** A fresh page with `protocol` picked, sending `prompt`; `posts` fills with its POSTs. */
  async function send(
    protocol: string,
    prompt: string,
    options: { fault?: string; tools?: boolean } = {},
  ): Promise<{ page: Page; posts: Request[] }> {
    const context = await playground.newContext({ viewport: { width: 1280, height: 900 } });
    const page = playground.watch(await context.newPage());
    const posts: Request[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") posts.push(request);
    });
    await page.goto(`${playground.url}/`);
    await page.selectOption("#protocol", protocol);
    await page.fill("#prompt", prompt);
    await page.selectOption("#fault", options.fault ?? "");
    if (options.tools === true) await page.check("#with-tools");
    await page.click("#send");
    return { page, posts };
  }

  const text = (page: Page, selector: string): Promise<string> =>
    page.$eval(selector, (el) => el.textContent ?? "");
  const waitForWords = (page: Page, count: number): Promise<unknown> =>
    page.waitForFunction(
      (n) => (document.getElementById("answer")?.textContent ?? "").split(" ").length > n,
      count,
    );

  test("the picker offers the relay's three protocols, chat completions first", async () => {
    const page = await (await playground.newContext()).newPage();
    await page.goto(`${playground.url}/`);
    const options = await page.$$eval(
      "#protocol option",
      (els) => els.map((el) => (el as HTMLOptionElement).value),
    );
    expect(options).toEqual(PROTOCOLS.map((p) => p.protocol));
    expect(await page.$eval("#protocol", (el) => (el as HTMLSelectElement).value)).toBe(
      "openai-chat",
    );
  });

  for (const { protocol, route, shape } of PROTOCOLS) {
    test(`${protocol}: the page calls ${route} in that shape; after a 503 the answer arrives whole`, async () => {
      const prompt = `Speak ${protocol}`;
      const { page, posts } = await send(protocol, prompt, { fault: "attempt1=status:503" });
      await page.waitForSelector('#status[data-state="done"]', { timeout: 30_000 });
      expect(await text(page, "#answer")).toMatch(
        new RegExp(`^You said: "${prompt}"\\. This is the stopstream demo model.* token\\.$`),
      );
      // One request from the page, to the picked protocol's route, in its shape.
      expect(posts.map((request) => new URL(request.url()).pathname)).toEqual([route]);
      const body = posts[0]!.postDataJSON() as Record<string, unknown>;
      expect(body.model).toBe("demo");
      for (const other of PROTOCOLS) {
        expect(Object.hasOwn(body, other.shape), `${other.shape} in ${JSON.stringify(body)}`)
          .toBe(other.shape === shape);
      }
      // The relay narrated its retry on this route too: the timeline has both requests.
      const first = '.tl-item[data-kind="attempt"][data-attempt="1"]';
      expect(await page.getAttribute(first, "data-outcome")).toBe("503");
      expect(await page.getAttribute('[data-attempt="2"]', "data-outcome")).toBe("200");
      expect(await text(page, "#status")).toMatch(
        /^done: the model finished its answer · relay → model: 2 requests · page → relay: 1 request · /,
      );
      // The stream's own end, not a cut: the page recognised this protocol's last event.
      expect(await page.getAttribute('[data-connection="request"]', "title")).toBe(
        "POST → 200 · ended",
      );
    });

    test(`${protocol}: a drop mid-answer ends the answer red, incomplete, in the relay's words`, async () => {
      const { page, posts } = await send(protocol, "Drop me", { fault: "drop-after=5" });
      await page.waitForSelector('#status[data-state="error"]', { timeout: 30_000 });
      expect(posts.map((request) => new URL(request.url()).pathname)).toEqual([route]);
      expect((await text(page, "#answer")).length).toBeGreaterThan(0);
      expect(await text(page, "#status")).toMatch(/^incomplete answer · /);
      const log = await text(page, "#log");
      expect(log).toContain(
        "the relay ended the stream: The connection to the upstream was lost after part of the " +
          "answer was sent; send the request again.",
      );
      expect(log.match(/ended the stream/g)).toHaveLength(1);
      // The relay's error event is the stream's end: the connection ended, nothing cut it.
      expect(await page.getAttribute('[data-connection="request"]', "title")).toBe(
        "POST → 200 · ended",
      );
    });

    test(`${protocol}: a second tab by the page's link and the page reloaded both read the answer in that protocol`, async () => {
      const { page, posts } = await send(protocol, "Follow me", { fault: "words=200" });
      await page.waitForSelector("#stream-row:not([hidden])");
      const id = await text(page, "#stream-id");
      const link = await page.getAttribute("#follow-link", "href");
      await waitForWords(page, 5);
      const second = playground.watch(await page.context().newPage());
      second.on("request", (request) => {
        if (request.method() === "POST") posts.push(request);
      });
      await second.goto(new URL(link ?? "", `${playground.url}/`).href);
      await waitForWords(second, 5);
      await page.reload();
      for (const tab of [page, second]) {
        await tab.waitForSelector('#status[data-state="done"]', { timeout: 30_000 });
        expect(await text(tab, "#stream-id")).toBe(id);
        expect(await tab.$eval("#protocol", (el) => (el as HTMLSelectElement).value)).toBe(
          protocol,
        );
        const answer = await text(tab, "#answer");
        expect(answer).toMatch(/^You said: "Follow me"\. /);
        expect(answer.split(" ")).toHaveLength(200);
      }
      // One POST, the first tab's: the second tab and the reloaded page read the stream by GET.
      expect(posts.map((request) => new URL(request.url()).pathname)).toEqual([route]);
    });

    test(`${protocol}: an offered tool is called, its arguments shown`, async () => {
      const { page, posts } = await send(protocol, "Weather in Paris?", { tools: true });
      await page.waitForSelector('#status[data-state="done"]', { timeout: 30_000 });
      expect(posts.map((request) => new URL(request.url()).pathname)).toEqual([route]);
      expect(await text(page, "#status")).toMatch(/^done: the model called a tool · /);
      const call = await text(page, "#tools");
      expect(call).toMatch(/^get_weather\(\{.*\}\)$/);
      expect(JSON.parse(call.slice("get_weather(".length, -1))).toEqual({
        city: expect.any(String),
      });
    });
  }
});
