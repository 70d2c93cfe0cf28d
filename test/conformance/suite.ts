/**
 * The portable conformance suite: the core behaviours of `streamChat`, written once and run on
 * Node, Deno, Bun, workerd and a real browser against the shared fault server
 * (`test/support/fault_handler.ts`) on a loopback socket.
 *
 * Runner-agnostic on purpose: no test framework, no Node APIs, no imports with runtime
 * effects. Each runtime's entry file passes the library *as its users import it* and the
 * fault server's origin; the cases talk to the server over HTTP only (requests and the
 * `/t/<id>/stats` route), so they run the same inside a Worker or a browser page.
 *
 * @module
 */

import type * as Stopstream from "../../src/index.ts";
import type { FaultStats } from "../support/fault_handler.ts";
import { protocolCases } from "./protocol_cases.ts";

/**
 * The library module, as the runtime under test loads it.
 *
 * @example
 * ```ts
 * import * as lib from "../../src/index.ts";
 * const module: StopstreamModule = lib;
 * ```
 */
export type StopstreamModule = typeof Stopstream;

/**
 * What a runtime's entry file hands to every case.
 *
 * @example
 * ```ts
 * const ctx: ConformanceContext = { lib, origin: "http://127.0.0.1:8123" };
 * ```
 */
export interface ConformanceContext {
  lib: StopstreamModule;
  /** Origin of the loopback fault server, without a trailing slash. */
  origin: string;
}

/**
 * One behaviour check: resolves when it holds, rejects with a readable error when not.
 *
 * @example
 * ```ts
 * for (const c of cases) Deno.test(c.name, () => c.run(ctx));
 * ```
 */
export interface ConformanceCase {
  name: string;
  run(ctx: ConformanceContext): Promise<void>;
}

const BODY = { model: "demo", messages: [{ role: "user", content: "conformance" }] };
/** Tiny backoff, so a retry costs milliseconds; the backoff case sets its own. */
const QUICK_RETRY = { initialDelayMs: 1, maxDelayMs: 5 };
/** How long the stats route may wait server-side for a counter (a bound, not a sleep). */
const STATS_WAIT_MS = 3000;

let sequence = 0;

/** A fresh fault-server id per run, so reruns and parallel runtimes never share counters. */
function freshId(name: string): string {
  const random = Math.random().toString(36).slice(2, 8);
  return `${name}-${++sequence}-${random}`;
}

/** `baseURL` for `streamChat`: the fault spec goes in the path, so no CORS preflight header. */
function baseURL(ctx: ConformanceContext, id: string, spec = ""): string {
  const faults = spec === "" ? "" : `/f/${encodeURIComponent(spec)}`;
  return `${ctx.origin}/t/${encodeURIComponent(id)}${faults}/v1`;
}

/**
 * What the server saw for `id`. With `atLeast`, the server holds the answer until those
 * counters are reached or `waitMs` passes (then it answers the current counts, and the
 * caller's comparison fails with them): an awaited event, not a sleep. To show that something
 * does *not* happen, ask for it with a short `waitMs` and expect the old counts back.
 */
async function stats(
  ctx: ConformanceContext,
  id: string,
  atLeast: Partial<FaultStats> = {},
  waitMs = STATS_WAIT_MS,
): Promise<FaultStats> {
  const query = new URLSearchParams({ timeout: String(waitMs) });
  for (const [field, value] of Object.entries(atLeast)) query.set(field, String(value));
  const response = await fetch(`${ctx.origin}/t/${encodeURIComponent(id)}/stats?${query}`);
  if (!response.ok) throw new Error(`stats route answered ${response.status}`);
  return await response.json() as FaultStats;
}

/** Whether the suite runs in a browser page (where a redirect in "manual" mode is opaque). */
function isBrowser(): boolean {
  return typeof (globalThis as { document?: unknown }).document === "object";
}

// ---- assertions: plain functions that throw, usable under any runner ----

function fail(message: string): never {
  throw new Error(`conformance: ${message}`);
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) fail(message);
}

/** `guard(value)` must hold; the failure names what `value` was instead. */
function assertIs<T>(
  guard: (value: unknown) => value is T,
  value: unknown,
  expected: string,
): asserts value is T {
  if (!guard(value)) fail(`${expected}, got ${describe(value)}`);
}

function assertEqual<T>(actual: T, expected: T, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) fail(`${what}: expected ${e}, got ${a}`);
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (cause ${error.cause.name})` : "";
    return `${error.name}: ${error.message}${cause}`;
  }
  return String(error);
}

/** Runs `fn`, expecting it to throw; returns what it threw. */
async function caught(fn: () => Promise<unknown>, what: string): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  return fail(`${what}: expected a rejection, but it resolved`);
}

/** Iterates `stream`, expecting it to throw; returns the text it yielded and what it threw. */
async function textUntilError(
  stream: Stopstream.ChatStream,
): Promise<{ text: string; error: unknown }> {
  let text = "";
  const error = await caught(async () => {
    for await (const event of stream) if (event.type === "text") text += event.text;
  }, "iteration");
  return { text, error };
}

/**
 * Iterates `stream`, aborting `controller` at each event `when` picks; expects the iteration
 * to throw. Returns what it threw and how long after the (last) abort that took.
 */
async function abortWhen(
  stream: Stopstream.ChatStream,
  controller: AbortController,
  when: (event: Stopstream.StreamEvent) => boolean,
): Promise<{ error: unknown; elapsed: number }> {
  let abortedAt = 0;
  const error = await caught(async () => {
    for await (const event of stream) {
      if (when(event)) {
        abortedAt = Date.now();
        controller.abort();
      }
    }
  }, "iteration");
  return { error, elapsed: Date.now() - abortedAt };
}

/** A `fetch` that counts calls: what the client tried to send, independent of the server. */
function countingFetch(): { fetch: typeof fetch; calls(): number } {
  let calls = 0;
  const counted: typeof fetch = (input, init) => {
    calls++;
    return fetch(input, init);
  };
  return { fetch: counted, calls: () => calls };
}

/**
 * The cases, in a stable order. Each one uses its own fault-server id.
 *
 * @example
 * ```ts
 * for (const c of cases) test(c.name, () => c.run({ lib, origin: server.url }));
 * ```
 */
export const cases: readonly ConformanceCase[] = [
  {
    name: "streams a healthy response to the end",
    async run(ctx) {
      const id = freshId("healthy");
      const stream = ctx.lib.streamChat({
        baseURL: baseURL(ctx, id, "words=8"),
        body: BODY,
        maxRetries: 0,
      });
      let text = "";
      const types: string[] = [];
      for await (const event of stream) {
        if (!types.includes(event.type)) types.push(event.type);
        if (event.type === "text") text += event.text;
      }
      const result = await stream.result;
      assert(text.length > 0, "no text events arrived");
      assertEqual(result.content, text, "result.content vs streamed text");
      assertEqual(result.finishReason, "stop", "finishReason");
      assertEqual(result.attempts, 1, "attempts");
      assertEqual(types[0], "open", "first event type");
      assertEqual(types[types.length - 1], "finish", "last event type");
      const seen = await stats(ctx, id, { completed: 1 });
      assertEqual(seen, { requests: 1, cancelled: 0, completed: 1 }, "server stats");
    },
  },
  {
    name: "retries after a connection drop before content, without duplicating output",
    async run(ctx) {
      const id = freshId("drop-before");
      const stream = ctx.lib.streamChat({
        baseURL: baseURL(ctx, id, "words=6,attempt1=drop-after:0"),
        body: BODY,
        retry: QUICK_RETRY,
      });
      let text = "";
      const retries: Array<{ attempt: number; error: Error }> = [];
      for await (const event of stream) {
        if (event.type === "text") text += event.text;
        if (event.type === "retry") retries.push({ attempt: event.attempt, error: event.error });
      }
      const result = await stream.result;
      assertEqual(retries.length, 1, "retry events");
      assertEqual(retries[0]?.attempt, 2, "retry event attempt");
      assertIs(
        ctx.lib.isConnectionError,
        retries[0]?.error,
        "retry cause should be ConnectionError",
      );
      assertEqual(result.attempts, 2, "attempts");
      assertEqual(result.content, text, "result.content vs streamed text");
      assertEqual(text.split(" ").filter(Boolean).length, 6, "words streamed");
      const seen = await stats(ctx, id, { requests: 2, completed: 1 });
      assertEqual(seen, { requests: 2, cancelled: 0, completed: 1 }, "server stats");
    },
  },
  {
    name: "a drop after content rejects with PartialStreamError and is not retried",
    async run(ctx) {
      const id = freshId("drop-after");
      const stream = ctx.lib.streamChat({
        baseURL: baseURL(ctx, id, "words=20,drop-after=3"),
        body: BODY,
        retry: QUICK_RETRY,
      });
      // Every attempt sends 3 words, then the server cuts the connection. A server may lose its
      // last unflushed write with the connection (Bun does), and a browser under load may lose
      // what it had received but not yet handed to the page (Chromium did: all 3 words). An
      // attempt that lost them all is a drop before content, and retrying it is right. So the
      // client is held to: retries only while nothing had arrived, none after, and some text
      // that is exactly what it yielded.
      let text = "";
      let retries = 0;
      let retriedAfterText = false;
      const error = await caught(async () => {
        for await (const event of stream) {
          if (event.type === "text") text += event.text;
          if (event.type === "retry") {
            retries++;
            retriedAfterText ||= text !== "";
            assertIs(ctx.lib.isConnectionError, event.error, "a retry's cause (a drop)");
          }
        }
      }, "iteration");
      assertIs(ctx.lib.isPartialStreamError, error, "expected PartialStreamError");
      assertEqual(error.name, "PartialStreamError", "error.name");
      assertIs(ctx.lib.isConnectionError, error.cause, "cause should be ConnectionError");
      assert(!retriedAfterText, "a retry after text had arrived");
      const words = text.split(" ").filter(Boolean).length;
      assert(words >= 1 && words <= 3, `words streamed before the drop: ${words}`);
      assertEqual(error.partial.content, text, "partial.content vs streamed text");
      // No request after the attempt that delivered text: 1, unless earlier attempts lost all.
      const attempts = retries + 1;
      assertEqual(error.attempts, attempts, "error.attempts (the retries before text, + 1)");
      const result = await caught(() => stream.result, "stream.result");
      assert(result === error, "stream.result should reject with the same error");
      assertEqual(await stats(ctx, id, { requests: attempts }), {
        requests: attempts,
        cancelled: 0,
        completed: 0,
      }, "server stats");
    },
  },
  {
    name: "an already aborted signal rejects with InterruptedError and sends nothing",
    async run(ctx) {
      const id = freshId("pre-aborted");
      const controller = new AbortController();
      const reason = new Error("user left");
      controller.abort(reason);
      const counted = countingFetch();
      const stream = ctx.lib.streamChat({
        baseURL: baseURL(ctx, id),
        body: BODY,
        signal: controller.signal,
        fetch: counted.fetch,
      });
      const error = await caught(() => stream.result, "stream.result");
      assertIs(ctx.lib.isInterruptedError, error, "expected InterruptedError");
      assert(error.cause === reason, "InterruptedError.cause should be the signal's reason");
      assertEqual(error.attempts, 0, "error.attempts");
      assertEqual(counted.calls(), 0, "fetch calls");
      assertEqual(await stats(ctx, id), { requests: 0, cancelled: 0, completed: 0 }, "stats");
    },
  },
  {
    name: "abort mid-stream rejects at once and closes the connection",
    async run(ctx) {
      const id = freshId("abort-mid");
      const controller = new AbortController();
      const stream = ctx.lib.streamChat({
        // ~2 s of stream: long enough that only a real cancel can stop it early.
        baseURL: baseURL(ctx, id, "words=400,word-delay=5"),
        body: BODY,
        signal: controller.signal,
      });
      let texts = 0;
      const { error, elapsed } = await abortWhen(
        stream,
        controller,
        (event) => event.type === "text" && ++texts === 2,
      );
      assertIs(ctx.lib.isInterruptedError, error, "expected InterruptedError");
      assertEqual(error.attempts, 1, "error.attempts");
      assertEqual(texts, 2, "text events seen (none after the abort)");
      assert(elapsed < 500, `rejection took ${elapsed} ms after abort`);
      const seen = await stats(ctx, id, { cancelled: 1 });
      assertEqual(seen, { requests: 1, cancelled: 1, completed: 0 }, "server stats");
    },
  },
  {
    name: "abort during backoff rejects at once and makes no second request",
    async run(ctx) {
      const id = freshId("abort-backoff");
      const controller = new AbortController();
      const counted = countingFetch();
      const stream = ctx.lib.streamChat({
        baseURL: baseURL(ctx, id, "attempt1=status:503;retry-after-ms:300"),
        body: BODY,
        signal: controller.signal,
        fetch: counted.fetch,
      });
      let delayMs = -1;
      const { error, elapsed } = await abortWhen(stream, controller, (event) => {
        if (event.type !== "retry") return false;
        delayMs = event.delayMs;
        return true;
      });
      assertIs(ctx.lib.isInterruptedError, error, "expected InterruptedError");
      assertEqual(error.attempts, 1, "error.attempts");
      // The server asked for 300 ms (Retry-After-Ms, readable cross-origin thanks to CORS).
      assertEqual(delayMs, 300, "retry delay");
      assert(elapsed < 150, `rejection took ${elapsed} ms after abort during a 300 ms backoff`);
      // A backoff timer left running would send attempt 2 at ~300 ms: give it twice that.
      const seen = await stats(ctx, id, { requests: 2 }, 600);
      assertEqual(seen, { requests: 1, cancelled: 0, completed: 0 }, "server stats");
      assertEqual(counted.calls(), 1, "fetch calls");
    },
  },
  {
    name: "a stall behind keep-alive pings before content fails with TimeoutError",
    async run(ctx) {
      const id = freshId("stall-first");
      const started = Date.now();
      const stream = ctx.lib.streamChat({
        baseURL: baseURL(ctx, id, "stall-after=0,stall-ms=10000,ping-ms=20"),
        body: BODY,
        maxRetries: 0,
        timeouts: { firstEventMs: 300 },
      });
      const error = await caught(() => stream.result, "stream.result");
      const elapsed = Date.now() - started;
      assertIs(ctx.lib.isTimeoutError, error, "expected TimeoutError");
      assertEqual(error.phase, "first-event", "timeout phase");
      // Pings every 20 ms must not count as progress: the timer fires on time.
      assert(elapsed >= 280 && elapsed < 3000, `timed out after ${elapsed} ms`);
      const seen = await stats(ctx, id, { cancelled: 1 });
      assertEqual(seen, { requests: 1, cancelled: 1, completed: 0 }, "server stats");
    },
  },
  {
    name: "a stall behind pings after content is a PartialStreamError caused by an idle timeout",
    async run(ctx) {
      const id = freshId("stall-idle");
      const stream = ctx.lib.streamChat({
        baseURL: baseURL(ctx, id, "words=20,stall-after=2,stall-ms=10000,ping-ms=20"),
        body: BODY,
        retry: QUICK_RETRY,
        timeouts: { idleMs: 300 },
      });
      const { text, error } = await textUntilError(stream);
      assertIs(ctx.lib.isPartialStreamError, error, "expected PartialStreamError");
      const cause = error.cause;
      assertIs(ctx.lib.isTimeoutError, cause, "cause should be TimeoutError");
      assertEqual(cause.phase, "idle", "timeout phase");
      assertEqual(error.partial.content, text, "partial.content vs streamed text");
      const seen = await stats(ctx, id, { cancelled: 1 });
      assertEqual(seen, { requests: 1, cancelled: 1, completed: 0 }, "server stats");
    },
  },
  {
    name: "a redirect to another origin is a RedirectError naming it; nothing is sent there",
    async run(ctx) {
      const id = freshId("redirect-away");
      // Same server, another origin: a followed redirect would show up in its counters.
      const other = ctx.origin.replace("127.0.0.1", "localhost");
      const target = `${other}/t/${encodeURIComponent(id)}/v1/chat/completions`;
      const error = await ctx.lib.streamChat({
        baseURL: `${ctx.origin}/t/${encodeURIComponent(id)}/r/${encodeURIComponent(target)}/v1`,
        apiKey: "sk-conformance-redirect-0001",
        body: BODY,
        retry: QUICK_RETRY,
      }).result.then(() => undefined, (e: unknown) => e);
      assertIs(ctx.lib.isRedirectError, error, "a RedirectError");
      if (isBrowser()) {
        // A browser hides where an opaque redirect points.
        assertEqual([error.reason, error.targetOrigin], ["opaque", undefined], "reason, origin");
      } else {
        assertEqual([error.reason, error.targetOrigin], ["cross-origin", other], "reason, origin");
      }
      assertEqual(error.attempts, 1, "attempts");
      const seen = await stats(ctx, id, { requests: 2 }, 300);
      assertEqual(seen.requests, 1, "requests (no retry, nothing followed)");
    },
  },
  {
    name: "a same-origin redirect is followed (outside browsers, which hide it: RedirectError)",
    async run(ctx) {
      const id = freshId("redirect-here");
      const target = `${ctx.origin}/t/${encodeURIComponent(id)}/f/words%3D4/v1/chat/completions`;
      const outcome = await ctx.lib.streamChat({
        baseURL: `${ctx.origin}/t/${encodeURIComponent(id)}/r/${encodeURIComponent(target)}/v1`,
        body: BODY,
        retry: QUICK_RETRY,
      }).result.then((result) => result, (e: unknown) => e);
      if (isBrowser()) {
        assertIs(ctx.lib.isRedirectError, outcome, "a RedirectError");
        assertEqual(outcome.reason, "opaque", "reason");
        assertEqual((await stats(ctx, id, { requests: 2 }, 300)).requests, 1, "requests");
      } else {
        assert(!(outcome instanceof Error), `expected an answer, got ${describe(outcome)}`);
        assert((outcome as { content: string }).content.length > 0, "no content");
        assertEqual((await stats(ctx, id, { completed: 1 })).requests, 2, "requests");
      }
    },
  },
  ...protocolCases,
];
