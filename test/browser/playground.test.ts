// The relay's playground in a real browser: headless Chromium opens the page the Worker serves
// under `npm start` (the demo model, resumable streams), streams with the browser build of
// stopstream, and draws each call's timeline from what the relay narrates. Every check waits for
// a state of the page, never for time to pass.
import { mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { describe, expect, test } from "vitest";
import { CHROMIUM_INSTALL_HINT, CHROMIUM_PATH, hasChromium } from "../support/chromium.ts";
import { usePlaygroundBrowser } from "../support/playground_browser.ts";

/** Where the layout checks write what they saw (not committed). */
const SHOTS = fileURLToPath(new URL("../../.tmp/browser/playground/", import.meta.url));

/**
 * Runs in the page: what spills out of the column or overlaps on the timeline, as it is drawn
 * (real boxes, not the script's estimate of a label's width). `[]` when nothing does.
 */
function layoutProblems(): string[] {
  const problems: string[] = [];
  const page = document.documentElement;
  if (page.scrollWidth > page.clientWidth) {
    problems.push(`the page scrolls sideways: ${page.scrollWidth} px wide in ${page.clientWidth}`);
  }
  const body = document.body.getBoundingClientRect();
  const right = body.right - parseFloat(getComputedStyle(document.body).paddingRight);
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (box.width > 0 && box.right > right + 0.5) {
      problems.push(
        `<${el.localName}${el.id ? `#${el.id}` : ""}> ends at ${box.right} px, ` +
          `past the column's ${right} px`,
      );
    }
  }
  const across = (a: DOMRect, b: DOMRect): boolean =>
    a.left < b.right - 0.5 && b.left < a.right - 0.5;
  for (const row of document.querySelectorAll<HTMLElement>(".tl-row, .tl-axis")) {
    const box = row.getBoundingClientRect();
    const items = [...row.querySelectorAll<HTMLElement>(".tl-item")].filter((el) => !el.hidden);
    const texts = [...row.querySelectorAll<HTMLElement>(".tl-label, .tl-axis > span")]
      .map((el) => [el, el.getBoundingClientRect()] as const)
      .filter(([el, r]) => r.width > 0 && el.textContent !== "");
    for (const [el, r] of texts) {
      const name = `${row.dataset.row ?? "axis"}: "${el.textContent}"`;
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5) {
        problems.push(`${name} leaves its row (${r.left}–${r.right} in ${box.left}–${box.right})`);
      }
      for (const bar of items) {
        if (!bar.contains(el) && across(r, bar.getBoundingClientRect())) {
          problems.push(`${name} covers the bar "${bar.title}"`);
        }
      }
      for (const [other, o] of texts) {
        if (other !== el && across(r, o)) problems.push(`${name} overlaps "${other.textContent}"`);
      }
    }
  }
  return problems;
}

if (!hasChromium()) {
  console.warn(
    `\n!!! PLAYGROUND BROWSER CHECK SKIPPED: no Chromium at ${CHROMIUM_PATH}. ` +
      `Install it with: ${CHROMIUM_INSTALL_HINT}\n`,
  );
}

describe.skipIf(!hasChromium())("the relay playground in headless Chromium", () => {
  const playground = usePlaygroundBrowser();

  /** A page of its own (a fresh context: its own sessionStorage) at `path`. */
  async function open(path = "/", shared?: BrowserContext, width = 1280): Promise<Page> {
    const context = shared ??
      await playground.newContext({ viewport: { width, height: 900 }, colorScheme: "light" });
    const page = playground.watch(await context.newPage());
    await page.goto(`${playground.url}${path}`);
    return page;
  }

  async function send(prompt: string, fault: string, width?: number): Promise<Page> {
    const page = await open("/", undefined, width);
    await page.fill("#prompt", prompt);
    await page.selectOption("#fault", fault);
    await page.click("#send");
    return page;
  }

  const text = (page: Page, selector: string): Promise<string> =>
    page.$eval(selector, (el) => el.textContent ?? "");
  /** A timeline item's whole label (its bar may show a shorter one). */
  const label = (page: Page, selector: string): Promise<string | null> =>
    page.getAttribute(selector, "title");
  const state = (page: Page): Promise<string | undefined> =>
    page.$eval("#status", (el) => (el as HTMLElement).dataset.state);
  const words = async (page: Page): Promise<number> =>
    (await text(page, "#answer")).split(" ").length;
  const waitForWords = (page: Page, count: number): Promise<unknown> =>
    page.waitForFunction(
      (n) => (document.getElementById("answer")?.textContent ?? "").split(" ").length > n,
      count,
    );
  /** The stream id the page shows once the relay answered. */
  async function streamId(page: Page): Promise<string> {
    await page.waitForSelector("#stream-row:not([hidden])");
    return await text(page, "#stream-id");
  }
  /** The time (ms) the Events log gives a line that matches `pattern`. */
  async function loggedAt(page: Page, pattern: RegExp): Promise<number> {
    const line = (await text(page, "#log")).split("\n").find((l) => pattern.test(l));
    return Number(/^\s*(\d+) ms/.exec(line ?? "")?.[1]);
  }

  /** The answer as an undisturbed stream gives it (the demo's reply is deterministic). */
  async function undisturbed(prompt: string, fault: string): Promise<string> {
    const response = await fetch(`${playground.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-demo-fault": fault },
      body: JSON.stringify({
        model: "demo",
        stream: true,
        messages: [{ role: "user", content: prompt }],
      }),
    });
    let answer = "";
    for (const line of (await response.text()).split("\n")) {
      if (!line.startsWith("data: {")) continue;
      answer += JSON.parse(line.slice(6)).choices[0]?.delta?.content ?? "";
    }
    return answer;
  }

  async function streamStatus(id: string): Promise<string> {
    const response = await fetch(`${playground.url}/v1/streams/${id}`, {
      headers: { accept: "application/json" },
    });
    return ((await response.json()) as { status: string }).status;
  }

  test("a prompt streams into the page; the timeline shows the request, the first token, the answer, the end", async () => {
    const page = await send("Hello from Chromium", "");
    await page.waitForSelector('#status[data-state="done"]');
    expect(await text(page, "#answer")).toMatch(/^You said: "Hello from Chromium"\./);
    // Not "done (stop)": the model's finish reason, in words that cannot be read as the button.
    expect(await text(page, "#status")).toMatch(
      /^done: the model finished its answer · relay → model: 1 request · page → relay: 1 request · first token \d+ ms · \d+ tokens$/,
    );
    const request = '.tl-item[data-kind="attempt"][data-attempt="1"]';
    expect(await page.getAttribute(request, "data-outcome")).toBe("200");
    expect(await page.getAttribute(request, "data-state")).toBe("ok");
    expect(await label(page, '.tl-item[data-kind="answer"]')).toMatch(
      /^first token \d+ ms · \d+ tokens$/,
    );
    expect(await label(page, '.tl-item[data-kind="end"]')).toMatch(/^done \d+ ms$/);
    expect(await page.$$('.tl-item[data-kind="wait"]')).toHaveLength(0);
    expect(await label(page, '.tl-item[data-connection="request"]')).toBe("POST → 200 · ended");
    // Nothing to resume later: a finished answer is not followed after a reload.
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  test("a 503: request 1 fails, a backoff, request 2 answers, the answer arrives whole", async () => {
    const page = await send("Survive a 503", "attempt1=status:503");
    await page.waitForSelector('#status[data-state="done"]');
    expect(await text(page, "#answer")).toMatch(/^You said: "Survive a 503"\./);
    const first = '.tl-item[data-kind="attempt"][data-attempt="1"]';
    expect(await page.getAttribute(first, "data-outcome")).toBe("503");
    expect(await page.getAttribute(first, "data-state")).toBe("error");
    expect(await label(page, first)).toMatch(/^#1 503 · \d+ ms$/);
    expect(await label(page, '.tl-item[data-kind="wait"]')).toMatch(/^backoff · waited \d+ ms$/);
    const second = '.tl-item[data-kind="attempt"][data-attempt="2"]';
    expect(await page.getAttribute(second, "data-outcome")).toBe("200");
    expect(await text(page, "#status")).toContain("relay → model: 2 requests");
    expect(await text(page, "#log")).toMatch(
      /ms {2}relay: request 1 503; backoff, request 2 in \d+ ms/,
    );
  });

  test("a 429 with Retry-After: 1 s counts down on the timeline, then request 2 answers", async () => {
    const page = await send("Wait for it", "attempt1=status:429;retry-after:1");
    const wait = '.tl-item[data-kind="wait"][data-retry-after-ms="1000"]';
    await page.waitForSelector(wait);
    const left = async (): Promise<number> =>
      Number(/· ([\d.]+) s left$/.exec((await label(page, wait)) ?? "")?.[1] ?? Number.NaN);
    const before = await left();
    expect(before).toBeGreaterThan(0);
    // The countdown runs: a later label says less time is left.
    await page.waitForFunction(
      ([selector, then]) => {
        // What the bar shows: its whole label or a short one, both ending "<n> s left".
        const match = /(?:^| )([\d.]+) s left$/.exec(
          document.querySelector(selector!)?.textContent ?? "",
        );
        return match !== null && Number(match[1]) < Number(then);
      },
      [wait, String(before)],
    );
    await page.waitForSelector('#status[data-state="done"]');
    expect(await label(page, wait)).toMatch(/^Retry-After 1 s · waited 1000 ms$/);
    expect(await page.getAttribute('[data-attempt="1"]', "data-outcome")).toBe("429");
    // The relay's own clock: request 2 answered a full second after request 1's 429.
    const failed = await loggedAt(page, /request 1 429; Retry-After 1 s/);
    const answered = await loggedAt(page, /request 2 to the model answered 200/);
    expect(answered - failed).toBeGreaterThanOrEqual(1000);
    // The status went out before request 2 (the relay's first comment commits it): its header
    // counts the requests made by then, the comment before the first content the final count.
    const log = await text(page, "#log");
    expect(log).toMatch(
      /ms {2}page: the relay answered 200; x-stopstream-attempts: 1 \(requests to the model before it sent the status\)\n/,
    );
    expect(log).toMatch(
      /ms {2}relay: the answer came after 2 requests to the model \(x-stopstream-attempts, sent with the status, said 1\)\n/,
    );
    expect(await text(page, "#status")).toContain("relay → model: 2 requests");
  });

  test("a stall before the first token: request 1 is called stalled and closed, request 2 answers", async () => {
    const page = await send("Stall first", "attempt1=stall-ms:4000;stall-after:0");
    await page.waitForSelector('#status[data-state="done"]');
    const first = '.tl-item[data-kind="attempt"][data-attempt="1"]';
    expect(await page.getAttribute(first, "data-outcome")).toBe("timeout");
    expect(await page.getAttribute(first, "data-phase")).toBe("first-event");
    expect(await label(page, first)).toMatch(/^#1 stalled 1\.5 s · \d+ ms$/);
    expect(await page.getAttribute('[data-attempt="2"]', "data-outcome")).toBe("200");
    expect(await text(page, "#answer")).toMatch(/^You said: "Stall first"\./);
  });

  test("Stop ends the answer at once: the cancel request stops the upstream, the timeline ends at the stop", async () => {
    const page = await send("Stop me", "words=200");
    const id = await streamId(page);
    await waitForWords(page, 5);
    expect(await state(page)).toBe("streaming");
    const clicked = Date.now();
    await page.click("#stop");
    await page.waitForSelector('#status[data-state="stopped"]');
    expect(Date.now() - clicked).toBeLessThan(1_000);
    expect(await words(page)).toBeLessThan(200);
    expect(await page.isDisabled("#stop")).toBe(true);
    expect(await page.isEnabled("#send")).toBe(true);
    expect(await text(page, "#log")).toContain("stopped: the request was aborted");
    expect(await text(page, "#status")).toMatch(/^stopped by you · /);
    // The page's own Stop closed its connection: grey, "stopped", not a red cut.
    const post = '.tl-item[data-connection="request"]';
    expect(await page.getAttribute(post, "data-state")).toBe("stopped");
    expect(await label(page, post)).toBe("POST → 200 · stopped by you");
    expect(await label(page, '.tl-item[data-kind="end"]')).toMatch(/^stopped \d+ ms$/);
    await page.waitForSelector('.tl-item[data-kind="cancel"][data-state="ok"]');
    expect(await label(page, '.tl-item[data-kind="cancel"]')).toBe(
      "cancel → 200 · upstream stopped",
    );
    expect(await streamStatus(id)).toBe("cancelled");
  });

  test("drop my connection: the relay cuts the page's connection, the client resumes, the answer is whole", async () => {
    const fault = "caller-drop-after=8,words=60";
    const page = await send("Drop me, then resume", fault);
    await page.waitForSelector('#status[data-state="done"]');
    expect(await text(page, "#answer")).toBe(await undisturbed("Drop me, then resume", "words=60"));
    // The page's two requests (the POST, the resume) are not the relay's one request to the model.
    expect(await text(page, "#status")).toMatch(
      /· relay → model: 1 request · page → relay: 2 requests · .* · resumed 1× \(gap \d+ ms\)$/,
    );
    const gap = '.tl-item[data-kind="gap"][data-after="8"]';
    expect(await label(page, gap)).toMatch(/^gap \d+ ms$/);
    expect(await page.getAttribute(gap, "data-state")).toBe("ok");
    expect(await label(page, '[data-connection="request"]')).toBe(
      "POST → 200 · cut before its end",
    );
    expect(await label(page, '[data-connection="resume"]')).toBe("GET after 8 → 200 · ended");
    expect(await text(page, "#log")).toMatch(
      /connection dropped after event 8; resuming in \d+ ms/,
    );
  });

  test("a reloaded page resumes the answer it was showing, whole and once", async () => {
    const expected = undisturbed("Reload me", "words=200");
    const page = await send("Reload me", "words=200");
    const id = await streamId(page);
    await waitForWords(page, 10);
    await page.reload();
    await page.waitForSelector('#status[data-state="done"]');
    expect(await text(page, "#answer")).toBe(await expected);
    expect(await text(page, "#stream-id")).toBe(id);
    expect(await text(page, "#log")).toContain(`following stream ${id} (the page was reloaded)`);
    expect(await label(page, '[data-connection="follow"]')).toBe("GET (follow) → 200 · ended");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  test("a second tab follows a running answer by id to the same end", async () => {
    const expected = undisturbed("Follow me", "words=200");
    const first = await send("Follow me", "words=200");
    const id = await streamId(first);
    await waitForWords(first, 5);
    const second = await open(`/?follow=${id}`, first.context());
    await waitForWords(second, 5);
    expect(await state(first)).toBe("streaming"); // it was following a running answer
    await Promise.all([first, second].map((p) => p.waitForSelector('#status[data-state="done"]')));
    expect(await text(second, "#answer")).toBe(await text(first, "#answer"));
    expect(await text(second, "#answer")).toBe(await expected);
  });

  test("Stop in the second tab stops the answer in both", async () => {
    const first = await send("Stop me from elsewhere", "words=200");
    const id = await streamId(first);
    const second = await open(`/?follow=${id}`, first.context());
    await waitForWords(second, 5);
    await second.click("#stop");
    await second.waitForSelector('#status[data-state="stopped"]');
    await first.waitForSelector('#status[data-state="stopped"]');
    expect(await text(first, "#status")).toContain("stopped by a cancel request");
    expect(await words(first)).toBeLessThan(200);
    expect(await streamStatus(id)).toBe("cancelled");
  });

  test("the model drops mid-answer: the answer ends red, incomplete, its words kept", async () => {
    const page = await send("Drop me", "drop-after=5");
    await page.waitForSelector('#status[data-state="error"]');
    expect((await text(page, "#answer")).length).toBeGreaterThan(0);
    expect(await text(page, "#status")).toContain("incomplete answer");
    expect(await label(page, '.tl-item[data-kind="end"]')).toMatch(/^incomplete answer \d+ ms$/);
    // The relay's own sentence, once: not the client's "the provider reported an error" (to the
    // page the relay is the provider), no chain of every hop's messages.
    const log = await text(page, "#log");
    expect(log).toContain(
      "the relay ended the stream: The connection to the upstream was lost after part of the " +
        "answer was sent; send the request again.",
    );
    expect(log).not.toContain("reported an error");
    expect(log.match(/ended the stream/g)).toHaveLength(1);
  });

  test("the model stalls mid-answer: the page says it went silent, not that it reported an error", async () => {
    const page = await send("Stall in the middle", "stall-after=6,stall-ms=5000");
    await page.waitForSelector('#status[data-state="error"]');
    expect(await text(page, "#status")).toMatch(/^incomplete answer · /);
    const log = await text(page, "#log");
    expect(log).toContain(
      "the relay ended the stream: The upstream went silent for 2000 ms after part of the answer " +
        "was sent; send the request again.",
    );
    expect(log).not.toContain("reported an error");
  });

  for (const width of [390, 1280]) {
    test(`at ${width} px the page fits its width and no label of the timeline covers another or a bar`, async () => {
      await mkdir(SHOTS, { recursive: true });
      const idle = await open("/", undefined, width);
      await idle.click("details summary");
      await idle.screenshot({ path: `${SHOTS}idle-${width}.png`, fullPage: true });
      expect(await idle.evaluate(layoutProblems), `the idle page at ${width} px`).toEqual([]);
      await idle.context().close();
      const runs: Array<[string, string, (page: Page) => Promise<unknown>]> = [
        ["retries", "attempt1=status:503,attempt2=status:429;retry-after:1", async (page) => {
          await page.waitForSelector('#status[data-state="done"]');
        }],
        ["resumed", "caller-drop-after=8,words=60", async (page) => {
          await page.waitForSelector('#status[data-state="done"]');
        }],
        ["stopped", "words=200", async (page) => {
          await waitForWords(page, 5);
          await page.click("#stop");
          await page.waitForSelector('.tl-item[data-kind="cancel"][data-state="ok"]');
        }],
        ["stalled", "stall-after=6,stall-ms=5000", async (page) => {
          await page.waitForSelector('#status[data-state="error"]');
        }],
      ];
      for (const [name, fault, end] of runs) {
        const page = await send("What is stopstream for?", fault, width);
        await end(page);
        await page.screenshot({ path: `${SHOTS}${name}-${width}.png`, fullPage: true });
        expect(await page.evaluate(layoutProblems), `"${name}" at ${width} px`).toEqual([]);
        await page.context().close();
      }
    });
  }

  test("the page says what each fault shows", async () => {
    const page = await open();
    for (
      const option of await page.$$eval(
        "#fault option",
        (els) => els.map((el) => el.getAttribute("value")),
      )
    ) {
      await page.selectOption("#fault", option ?? "");
      expect((await text(page, "#fault-help")).length).toBeGreaterThan(20);
    }
    expect(await text(page, "details")).toContain("Drop my connection mid-answer");
  });
});
