/**
 * The demo upstream is bounded: every response ends within 120 s whatever its fault spec (a
 * spec that would take longer is a 400 that says so, before any waiting), pings come at most
 * 50 times a second, and a body still open at its time limit is cut.
 */

import { describe, expect, test } from "vitest";
import { MAX_RESPONSE_MS } from "../../src/apps/demo/faults.ts";
import { planDemoReply } from "../../src/apps/demo/reply.ts";
import { createDemoStream } from "../../src/apps/demo/stream.ts";
import { createDemoUpstream } from "../../src/apps/demo/upstream.ts";
import { chatRequest, readBody } from "./demo_helpers.ts";

const demo = createDemoUpstream({ wordDelayMs: 25 });
const ask = (fault: string, stream = true) =>
  demo(chatRequest({ stream }, { "x-demo-fault": fault }));

describe("demo bounds", () => {
  test.each([
    ["word-delay=10000,words=5000", 50_000],
    ["word-delay=10000,words=5000,ping-ms=20", 50_000],
    ["first-byte-ms=100000,stall-ms=30000", 130],
    ["stall-ms=120000,words=10", 121],
  ])("%s would take at least %i s: a 400 that says so, at once", async (fault, seconds) => {
    const started = Date.now();
    const response = await ask(fault);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string; code: string } };
    expect(error.code).toBe("invalid_demo_fault");
    const said = Number(/about (\d+) s/.exec(error.message)?.[1]);
    expect(said).toBeGreaterThanOrEqual(seconds);
    expect(said).toBeLessThan(seconds + 5); // plus the words of the reply, 25 ms each
    expect(error.message).toContain("within 120 s");
  });

  test("the issue's spec (word-delay=10000,words=5000,ping-ms=1) is refused", async () => {
    const response = await ask("word-delay=10000,words=5000,ping-ms=1");
    expect(response.status).toBe(400);
  });

  test("a spec within the limit is served; a slow first byte alone counts only for itself", async () => {
    const long = await ask("words=1000,word-delay=100"); // 100 s of words
    expect(long.status).toBe(200);
    await long.body!.cancel();
    const errorLater = await ask("first-byte-ms=10,status=503,word-delay=10000,words=5000");
    expect(errorLater.status).toBe(503);
    const whole = await ask("word-delay=10000,words=5000", false); // not paced when not streaming
    expect(whole.status).toBe(200);
    // Nor does it stall: there are no words to stall between.
    const unstalled = await ask("stall-ms=120000,first-byte-ms=10", false);
    expect(unstalled.status).toBe(200);
  });

  test("pings are bounded: ping-ms below 20 is a 400, 20 is served", async () => {
    expect((await ask("ping-ms=19")).status).toBe(400);
    const ok = await ask("ping-ms=20,words=2,word-delay=1");
    expect(ok.status).toBe(200);
    await readBody(ok.body!);
  });

  test("a body still open at its time limit is cut", async () => {
    expect(MAX_RESPONSE_MS).toBe(120_000);
    const body = {
      model: "demo",
      messages: [],
      tools: [],
      toolChoice: undefined,
      stream: true,
      includeUsage: false,
    };
    const stream = createDemoStream({
      plan: planDemoReply(body, { words: 3 }),
      faults: { stallMs: 60_000, stallAfter: 1 },
      model: "demo",
      wordDelayMs: 1,
      includeUsage: false,
      attempt: 1,
      endBy: Date.now() + 50,
    });
    const started = Date.now();
    const { error } = await readBody(stream);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(String(error)).toMatch(/time limit/);
  });
});
