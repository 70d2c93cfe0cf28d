import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import {
  APIStatusError,
  InterruptedError,
  PartialStreamError,
} from "../../src/core/error_classes.ts";
import { createRetryBudget, type RetryBudget } from "../../src/core/retry_budget.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import {
  type ResumableServer,
  sseBlocks,
  startResumableServer,
} from "../support/resumable_server.ts";
import { chunk, collect, ofType, openAIText, scriptedBody, sse } from "../support/sse.ts";

// The retry budget shared by calls. The budget's clock is `Date.now()`, faked here (and only
// it: timers stay real, and every backoff is 0 ms), so each test decides when time passes.

const T0 = Date.UTC(2025, 0, 1);
const BODY = { model: "gpt-test", messages: [{ role: "user", content: "Hi" }] };
const PRIMARY = "https://primary.test/v1";
const FALLBACK = "https://fallback.test/v1";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

function ok(): Response {
  return new Response(openAIText(["o", "k"]), { headers: { "content-type": "text/event-stream" } });
}

function overloaded(): Response {
  return Response.json({ error: { message: "overloaded", type: "server_error" } }, { status: 503 });
}

/** An injected fetch that answers `respond(url, n)` and counts requests per host. */
function upstream(respond: (url: string, n: number) => Response = overloaded) {
  const hosts: Record<string, number> = {};
  let count = 0;
  const fetchFn = (input: RequestInfo | URL): Promise<Response> => {
    const url = String(input instanceof Request ? input.url : input);
    const host = new URL(url).host;
    hosts[host] = (hosts[host] ?? 0) + 1;
    return Promise.resolve(respond(url, ++count));
  };
  return {
    fetch: fetchFn as typeof fetch,
    hosts,
    get count() {
      return count;
    },
  };
}

function call(
  fetchFn: typeof fetch,
  retryBudget: RetryBudget | undefined,
  extra: Partial<StreamChatOptions> = {},
): StreamChatOptions {
  return {
    baseURL: PRIMARY,
    body: BODY,
    fetch: fetchFn,
    retry: { initialDelayMs: 0, maxDelayMs: 0 },
    ...(retryBudget === undefined ? {} : { retryBudget }),
    ...extra,
  };
}

describe("createRetryBudget", () => {
  test("starts with minPerSecond retries, refills minPerSecond a second, never holds more", () => {
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 2 });
    expect(budget.balance).toBe(2);
    expect([budget.tryWithdraw(), budget.tryWithdraw(), budget.tryWithdraw()]).toEqual([
      true,
      true,
      false,
    ]);
    vi.setSystemTime(T0 + 499);
    expect(budget.tryWithdraw()).toBe(false);
    vi.setSystemTime(T0 + 500);
    expect(budget.tryWithdraw()).toBe(true);
    vi.setSystemTime(T0 + 60_000);
    expect(budget.balance).toBe(2);
  });

  test("each deposit adds ratio of a retry; a retry needs a whole one", () => {
    const budget = createRetryBudget({ ratio: 0.25, minPerSecond: 0 });
    expect(budget.balance).toBe(0);
    for (let i = 0; i < 3; i++) budget.deposit();
    expect(budget.tryWithdraw()).toBe(false);
    budget.deposit();
    expect(budget.tryWithdraw()).toBe(true);
    expect(budget.tryWithdraw()).toBe(false);
  });

  test("deposits fade over about 10 s: a healthy spell saves up no retry storm", () => {
    const budget = createRetryBudget({ ratio: 1, minPerSecond: 0 });
    for (let i = 0; i < 50; i++) budget.deposit();
    expect(budget.balance).toBe(50);
    vi.setSystemTime(T0 + 10_000);
    expect(budget.balance).toBe(18); // 50 / e
    vi.setSystemTime(T0 + 60_000);
    expect(budget.balance).toBe(0);
  });

  test("a clock set back credits nothing twice", () => {
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 1 });
    expect(budget.tryWithdraw()).toBe(true);
    vi.setSystemTime(T0 - 10_000);
    expect(budget.tryWithdraw()).toBe(false);
    vi.setSystemTime(T0 + 999);
    expect(budget.tryWithdraw()).toBe(false);
    vi.setSystemTime(T0 + 1000);
    expect(budget.tryWithdraw()).toBe(true);
  });

  test("a retry given back (refund) can be taken again", () => {
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 1 });
    expect(budget.tryWithdraw()).toBe(true);
    expect(budget.tryWithdraw()).toBe(false);
    budget.refund?.();
    expect(budget.balance).toBe(1);
    expect(budget.tryWithdraw()).toBe(true);
    expect(budget.tryWithdraw()).toBe(false);
  });

  test("the defaults: 10 retries at once, 10 a second, a fifth of a retry per call", () => {
    const budget = createRetryBudget();
    expect(budget.balance).toBe(10);
    for (let i = 0; i < 10; i++) budget.tryWithdraw();
    for (let i = 0; i < 5; i++) budget.deposit();
    expect(budget.balance).toBe(1);
  });

  test.each([["ratio", -0.1], ["ratio", Infinity], ["minPerSecond", Number.NaN], [
    "minPerSecond",
    "5",
  ]])("a bad %s (%s) is a RangeError naming it and the value", (name, value) => {
    expect(() => createRetryBudget({ [name]: value })).toThrow(RangeError);
    expect(() => createRetryBudget({ [name]: value })).toThrow(
      `createRetryBudget \`${name}\` must be a finite number ≥ 0, got ${value}`,
    );
  });
});

describe("streamChat with a retryBudget", () => {
  test("an empty budget: the call fails with the last error at once, one request, no retry event", async () => {
    const up = upstream();
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 0 });
    const { events, error } = await collect(streamChat(call(up.fetch, budget, { maxRetries: 5 })));
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).status).toBe(503);
    expect((error as APIStatusError).attempts).toBe(1);
    expect(ofType(events, "retry")).toEqual([]);
    expect(up.count).toBe(1);
  });

  test("without a budget the same call retries: maxRetries alone limits it", async () => {
    const up = upstream();
    const { error } = await collect(streamChat(call(up.fetch, undefined, { maxRetries: 5 })));
    expect((error as APIStatusError).attempts).toBe(6);
    expect(up.count).toBe(6);
  });

  test("an empty budget moves on to the fallback at once: a fallback is not a retry", async () => {
    const up = upstream((url) => url.startsWith(FALLBACK) ? ok() : overloaded());
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 0 });
    const { events, result } = await collect(
      streamChat(call(up.fetch, budget, { maxRetries: 5, fallbacks: [{ baseURL: FALLBACK }] })),
    );
    expect(result?.content).toBe("ok");
    expect(result?.target?.index).toBe(1);
    expect(ofType(events, "retry")).toEqual([]);
    expect(ofType(events, "fallback").map((e) => e.index)).toEqual([1]);
    expect(up.hosts).toEqual({ "primary.test": 1, "fallback.test": 1 });
  });

  test("first attempts deposit: two calls at ratio 0.5 earn one retry between them", async () => {
    const up = upstream();
    const budget = createRetryBudget({ ratio: 0.5, minPerSecond: 0 });
    const first = await collect(streamChat(call(up.fetch, budget, { maxRetries: 5 })));
    expect((first.error as APIStatusError).attempts).toBe(1);
    const second = await collect(streamChat(call(up.fetch, budget, { maxRetries: 5 })));
    expect((second.error as APIStatusError).attempts).toBe(2);
    expect(ofType(second.events, "retry")).toHaveLength(1);
    expect(up.count).toBe(3);
    expect(budget.balance).toBe(0);
  });

  test("a retry that succeeds spends one retry, and a call's fallbacks deposit nothing more", async () => {
    const up = upstream((url, n) => (url.startsWith(FALLBACK) || n === 2 ? ok() : overloaded()));
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 3 });
    const { result } = await collect(streamChat(call(up.fetch, budget)));
    expect(result?.attempts).toBe(2);
    expect(budget.balance).toBe(2);
    // Two retries in the budget (one saved, one deposited by the call): the primary gets them,
    // then the fallback's first request deposits nothing.
    const budget2 = createRetryBudget({ ratio: 1, minPerSecond: 1 });
    const up2 = upstream((url) => url.startsWith(FALLBACK) ? ok() : overloaded());
    const chained = await collect(
      streamChat(call(up2.fetch, budget2, { maxRetries: 5, fallbacks: [{ baseURL: FALLBACK }] })),
    );
    expect(chained.result?.target?.index).toBe(1);
    expect(up2.hosts).toEqual({ "primary.test": 3, "fallback.test": 1 });
    expect(budget2.balance).toBe(0);
  });

  test("under a sustained outage, requests ≤ (1 + ratio) × calls + the floor (sequential calls over 2 s)", async () => {
    const up = upstream();
    const ratio = 0.2;
    const minPerSecond = 2;
    const budget = createRetryBudget({ ratio, minPerSecond });
    const calls = 200;
    for (let i = 0; i < calls; i++) {
      vi.setSystemTime(T0 + i * 10); // one call every 10 ms: 2 s in all
      const { error } = await collect(streamChat(call(up.fetch, budget, { maxRetries: 3 })));
      expect(error).toBeInstanceOf(APIStatusError);
    }
    const seconds = ((calls - 1) * 10) / 1000;
    const bound = (1 + ratio) * calls + minPerSecond + minPerSecond * seconds;
    expect(up.count).toBeLessThanOrEqual(bound);
    // The budget was used, not just refused: about 40 retries from deposits (each fades a
    // little before five of them make a whole one), 2 + 4 from the floor.
    expect(up.count).toBeGreaterThanOrEqual(calls + 0.9 * ratio * calls + minPerSecond);
    // Without the budget the same outage costs four requests per call.
    const unbudgeted = upstream();
    for (let i = 0; i < 20; i++) {
      await collect(streamChat(call(unbudgeted.fetch, undefined, { maxRetries: 3 })));
    }
    expect(unbudgeted.count).toBe(80);
  });

  test("concurrent calls share one budget: 100 at once stay within (1 + ratio) × 100 + the floor", async () => {
    const up = upstream();
    const budget = createRetryBudget({ ratio: 0.2, minPerSecond: 2 });
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, () => collect(streamChat(call(up.fetch, budget)))),
    );
    expect(outcomes.every((o) => o.error instanceof APIStatusError)).toBe(true);
    expect(up.count).toBeLessThanOrEqual(1.2 * 100 + 2);
    expect(up.count).toBeGreaterThanOrEqual(100 + 20);
    expect(budget.balance).toBe(0);
  });

  test("a call that ends in any way takes only the retries it started", async () => {
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 5 });
    // Succeeds at once: nothing taken.
    await collect(streamChat(call(upstream(ok).fetch, budget)));
    expect(budget.balance).toBe(5);
    // One retry, then success: one taken.
    await collect(
      streamChat(call(upstream((_, n) => n === 1 ? overloaded() : ok()).fetch, budget)),
    );
    expect(budget.balance).toBe(4);
    // Stopped during its backoff: the retry was decided (and taken) before the wait; nothing
    // is given back, and nothing more is taken.
    const stop = new AbortController();
    const waiting = collect(
      streamChat(
        call(upstream().fetch, budget, {
          retry: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
          signal: stop.signal,
        }),
      ),
      (event) => {
        if (event.type === "retry") stop.abort();
      },
    );
    expect((await waiting).error).toBeInstanceOf(InterruptedError);
    expect(budget.balance).toBe(3);
    // Stopped mid-stream, and a `break`: nothing taken.
    const held = () => {
      const body = scriptedBody([sse(chunk({ content: "a" })), { hold: true }]);
      return new Response(body.stream, { headers: { "content-type": "text/event-stream" } });
    };
    const midStream = new AbortController();
    const aborted = await collect(
      streamChat(call(upstream(held).fetch, budget, { signal: midStream.signal })),
      (event) => {
        if (event.type === "text") midStream.abort();
      },
    );
    expect(aborted.error).toBeInstanceOf(InterruptedError);
    for await (const event of streamChat(call(upstream(held).fetch, budget))) {
      if (event.type === "text") break;
    }
    expect(budget.balance).toBe(3);
  });

  test("a drop after content with an empty budget ends as PartialStreamError; onPartial continue asks for no continuation", async () => {
    const cut = () =>
      new Response(
        scriptedBody([sse(chunk({ content: "half" })), { error: new TypeError("terminated") }])
          .stream,
        { headers: { "content-type": "text/event-stream" } },
      );
    const up = upstream(cut);
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 0 });
    const { error } = await collect(
      streamChat(call(up.fetch, budget, { onPartial: "continue" })),
    );
    expect(error).toBeInstanceOf(PartialStreamError);
    expect((error as PartialStreamError).partial.content).toBe("half");
    expect(up.count).toBe(1);
    // With one retry in the budget, the same call continues once.
    const up2 = upstream((_, n) => n === 1 ? cut() : ok());
    const continued = await collect(
      streamChat(call(up2.fetch, createRetryBudget({ ratio: 0, minPerSecond: 1 }), {
        onPartial: "continue",
      })),
    );
    expect(continued.result?.continuations).toBe(1);
    expect(up2.count).toBe(2);
  });
});

describe("resumes draw on the budget", () => {
  const WORDS = ["One ", "two ", "three ", "four ", "five."];
  const EVENTS = sseBlocks(openAIText(WORDS));
  let server: ResumableServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function resumable(budget: RetryBudget): StreamChatOptions {
    return {
      baseURL: server!.baseURL,
      headers: { "x-stopstream-resumable": "true" },
      body: BODY,
      retry: { initialDelayMs: 0, maxDelayMs: 0 },
      retryBudget: budget,
    };
  }

  test("with the budget empty, a drop is not resumed: PartialStreamError, one connection, no resume counted", async () => {
    server = await startResumableServer("relay", EVENTS, [{ endAt: 3 }]);
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 0 });
    const { events, error } = await collect(streamChat(resumable(budget)));
    expect(error).toBeInstanceOf(PartialStreamError);
    expect((error as PartialStreamError).partial.content).toBe("One two ");
    expect((error as PartialStreamError).partial.resumes).toBeUndefined();
    expect(ofType(events, "resume")).toEqual([]);
    expect(server.connections).toHaveLength(1);
  });

  test("with one retry in the budget, the drop is resumed once and the answer completes", async () => {
    server = await startResumableServer("relay", EVENTS, [{ endAt: 3 }]);
    const budget = createRetryBudget({ ratio: 0, minPerSecond: 1 });
    const { events, result } = await collect(streamChat(resumable(budget)));
    expect(result?.content).toBe(WORDS.join(""));
    expect(result?.resumes).toBe(1);
    expect(ofType(events, "resume")).toHaveLength(1);
    expect(server.connections).toHaveLength(2);
    expect(budget.balance).toBe(0);
  });
});

describe("the retryBudget option", () => {
  test("a budget another copy of stopstream made is drawn from: checked by shape", async () => {
    // Not made by this copy's createRetryBudget: checked by shape, so it is drawn from.
    const seen: string[] = [];
    let allow = 1;
    const foreign: RetryBudget = {
      deposit: () => void seen.push("deposit"),
      tryWithdraw: () => (seen.push("withdraw"), allow-- > 0),
      get balance() {
        return Math.max(0, allow);
      },
    };
    const up = upstream();
    const { result, error } = await collect(streamChat(call(up.fetch, foreign, { maxRetries: 5 })));
    expect(result).toBeUndefined();
    expect(error).toBeInstanceOf(APIStatusError);
    expect((error as APIStatusError).status).toBe(503);
    // One retry allowed, then the empty budget ends the call with the last error.
    expect(up.count).toBe(2);
    expect(seen).toEqual(["deposit", "withdraw", "withdraw"]);
  });

  test("something that is not a budget is a TypeError", () => {
    expect(() =>
      streamChat({ baseURL: PRIMARY, body: BODY, retryBudget: {} as unknown as RetryBudget })
    ).toThrow("`retryBudget` must be an object made by createRetryBudget()");
  });

  test("a fallback entry cannot carry its own budget", () => {
    expect(() =>
      streamChat({
        baseURL: PRIMARY,
        body: BODY,
        fallbacks: [{ baseURL: FALLBACK, retryBudget: createRetryBudget() }],
      })
    ).toThrow("`fallbacks[0].retryBudget` is not allowed; set it on the call");
  });

  test("a misspelt retryBudgets names retryBudget", () => {
    expect(() =>
      streamChat({ baseURL: PRIMARY, body: BODY, retryBudgets: 1 } as unknown as StreamChatOptions)
    ).toThrow("did you mean `retryBudget`?");
  });
});
