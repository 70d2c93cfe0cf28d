import { describe, expect, test } from "vitest";
import { InterruptedError } from "../../src/core/error_classes.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import { useFakeClock } from "../support/clock.ts";
import { startFirehose } from "../support/firehose.ts";
import { noAnswer, type Reply, sseReply, withLoopbackUpstream } from "../support/msw.ts";
import { isAPIStatusError } from "../../src/core/error_guards.ts";
import type { StreamEvent } from "../../src/core/chat_result.ts";
import {
  chunk,
  collect,
  DONE,
  openAIText,
  scriptedBody,
  settlesNow,
  sse,
  type Step,
} from "../support/sse.ts";

// Real sockets on 127.0.0.1, no MSW: these tests check what only a server can see, that the
// client closed its connection.

const BODY = { model: "gpt-test", messages: [{ role: "user", content: "Hi" }] };

function options(baseURL: string, extra: Partial<StreamChatOptions> = {}): StreamChatOptions {
  return { baseURL, body: BODY, retry: { initialDelayMs: 1, maxDelayMs: 2 }, ...extra };
}

describe("against a real loopback server", () => {
  useFakeClock();

  test("an abort while waiting for headers closes the connection the server holds", async () => {
    await withLoopbackUpstream(async (server) => {
      server.reply(noAnswer);
      const controller = new AbortController();
      const stream = streamChat(
        options(server.baseURL, { signal: controller.signal, fetch: server.fetch }),
      );
      const result = stream.result;
      const served = await server.served(1);
      controller.abort();
      expect(await settlesNow(result)).toEqual({ rejected: expect.any(InterruptedError) });
      expect(await served.closed).toBe("aborted");
      await server.expectNoMoreRequests();
      expect(server.count).toBe(1);
    });
  });

  test("an abort mid-stream closes the connection, the body is cancelled", async () => {
    await withLoopbackUpstream(async (server) => {
      server.reply(sseReply([sse(chunk({ content: "Hel" })), { hold: true }]));
      const controller = new AbortController();
      const stream = streamChat(
        options(server.baseURL, { signal: controller.signal, fetch: server.fetch }),
      );
      const { events, error } = await collect(stream, (event) => {
        if (event.type === "text") controller.abort();
      });
      expect(events.map((e) => e.type)).toEqual(["open", "text"]);
      expect(error).toBeInstanceOf(InterruptedError);
      const served = await server.served(1);
      expect(await served.closed).toBe("aborted");
      await server.requests[0]!.stream!.cancelled;
      await server.expectNoMoreRequests();
      expect(server.count).toBe(1);
    });
  });

  test("events after [DONE] are ignored and the body is released without waiting for the server", async () => {
    await withLoopbackUpstream(async (server) => {
      server.reply(
        sseReply([openAIText(["ok"]), sse(chunk({ content: "late" })), { hold: true }]),
      );
      const { events, result } = await collect(streamChat(options(server.baseURL)));
      expect(result?.content).toBe("ok");
      expect(events.filter((e) => e.type === "text").map((e) => e)).toEqual([
        { type: "text", text: "ok" },
      ]);
      // The server never ended its body: the client closed the connection.
      expect(await (await server.served(1)).closed).toBe("aborted");
      expect(server.count).toBe(1);
    });
  });

  test("DONE with a trailing body in the same chunk: the rest is ignored", async () => {
    await withLoopbackUpstream(async (server) => {
      server.reply(sseReply([openAIText(["ok"]) + sse(chunk({ content: "late" })) + DONE]));
      const result = await streamChat(options(server.baseURL)).result;
      expect(result.content).toBe("ok");
      expect(server.count).toBe(1);
    });
  });
});

describe("stopping the iteration against a real loopback server", () => {
  useFakeClock();

  test("break cancels the upstream: the server sees its connection close", async () => {
    await withLoopbackUpstream(async (server) => {
      server.reply(sseReply([sse(chunk({ content: "Hel" })), { hold: true }]));
      const stream = streamChat(options(server.baseURL, { fetch: server.fetch }));
      for await (const event of stream) if (event.type === "text") break;
      await expect(stream.result).rejects.toBeInstanceOf(InterruptedError);
      expect(await (await server.served(1)).closed).toBe("aborted");
      await server.requests[0]!.stream!.cancelled;
      await server.expectNoMoreRequests();
      expect(server.count).toBe(1);
    });
  });

  test("a stall timeout closes the stalled connection before the retry", async () => {
    await withLoopbackUpstream(async (server) => {
      server.reply(
        sseReply([sse(chunk({ role: "assistant", content: "" })), { hold: true }]),
        sseReply(openAIText(["ok"])),
      );
      const result = await streamChat(options(server.baseURL, { timeouts: { idleMs: 20 } }))
        .result;
      expect(result.content).toBe("ok");
      expect(await (await server.served(1)).closed).toBe("aborted");
      expect(await (await server.served(2)).closed).toBe("finished");
      expect(server.count).toBe(2);
    });
  });
});

describe("a slow consumer against a real loopback server", () => {
  test("a consumer that stops taking events stops the socket reads: the server is held back", async () => {
    // A server writing content as fast as its socket takes it (test/support/firehose.ts).
    const server = await startFirehose(sse(chunk({ content: "x".repeat(100) })));
    try {
      const stream = streamChat(options(server.baseURL, { maxRetries: 0 }));
      const iterator = stream[Symbol.asyncIterator]();
      expect((await iterator.next()).value).toMatchObject({ type: "open" });
      expect((await iterator.next()).value).toMatchObject({ type: "text" });
      expect(await server.outcome).toBe("held"); // the consumer takes nothing more
      expect(server.written()).toBeLessThan(32 * 2 ** 20); // socket buffers and one network chunk
      await iterator.return!();
    } finally {
      await server.close();
    }
  });

  /**
   * A stream of `tokens` text events, one every 10 ms (never silent for 100 ms, its `idleMs`),
   * read by a consumer that spends 300 ms of synchronous work (a blocking write, a full
   * re-render) on each token for which `blocksOn` says so. Resolves with the text it got.
   */
  async function readBlocking(tokens: number, blocksOn: (n: number) => boolean): Promise<string> {
    let content = "";
    await withLoopbackUpstream(async (server) => {
      const steps: Step[] = [sse(chunk({ role: "assistant", content: "" }))];
      for (let i = 0; i < tokens; i++) steps.push(sse(chunk({ content: "t" })), { delayMs: 10 });
      server.reply(sseReply([...steps, sse(chunk({}, "stop")), DONE]));
      const stream = streamChat(
        options(server.baseURL, { maxRetries: 0, timeouts: { idleMs: 100 } }),
      );
      let n = 0;
      for await (const event of stream) {
        if (event.type !== "text" || !blocksOn(++n)) continue;
        const until = Date.now() + 300;
        while (Date.now() < until);
      }
      content = (await stream.result).content;
    });
    return content;
  }

  test("a consumer that blocks the event loop for longer than idleMs is no silent server", async () => {
    // The idle timer fires late, before the events that came meanwhile were read. It called
    // the stream silent (PartialStreamError, 5 of 40 tokens kept).
    expect(await readBlocking(40, (n) => n === 5)).toBe("t".repeat(40));
  });

  test("nor one that blocks it on every token", async () => {
    // Blocked again in the turn the late timer gave: that turn must not be the last (review:
    // a second block right after the first was called silent).
    expect(await readBlocking(6, () => true)).toBe("t".repeat(6));
  });
});

/** A `status` answer whose JSON body is cut halfway (a real socket: what a proxy does). */
function cutErrorBody(status: number, headers: Record<string, string> = {}): Reply {
  return (seen) =>
    new Response(
      scriptedBody(['{"error":{"message":"bad key",', { error: new Error("cut") }], seen.signal)
        .stream,
      { status, headers: { "content-type": "application/json", ...headers } },
    );
}

// Found in a review: the body of an error answer cut while it was read lost its status.
describe("an error body cut while it is read keeps its status", () => {
  test("a 401 is an APIStatusError 401, not retried as a lost connection", async () => {
    await withLoopbackUpstream(async (server) => {
      server.reply(cutErrorBody(401));
      const error = await streamChat(options(server.baseURL)).result.catch((e: unknown) => e);
      expect({ name: (error as Error).name, requests: server.count }).toEqual({
        name: "APIStatusError",
        requests: 1,
      });
      expect(isAPIStatusError(error) && error.status).toBe(401);
    });
  });

  test("a 429's Retry-After is still honoured", async () => {
    await withLoopbackUpstream(async (server) => {
      server.reply(cutErrorBody(429, { "retry-after": "7" }));
      const controller = new AbortController();
      const iterator = streamChat({
        ...options(server.baseURL),
        signal: controller.signal,
      })
        [Symbol.asyncIterator]();
      let retry: StreamEvent | undefined;
      while (retry === undefined) {
        const { done, value } = await iterator.next();
        if (done) break;
        if (value.type === "retry") retry = value;
      }
      controller.abort();
      expect(retry).toMatchObject({ type: "retry", delayMs: 7000 });
    });
  });
});
