/**
 * The partial-stream policy: what happens when a stream fails after content reached the
 * caller. "throw" (default), "return" (keep it), "continue" (ask for the rest), "retry" (start
 * over, for callers who show nothing until the end).
 */

import { describe, expect, test } from "vitest";
import {
  isAPIStatusError,
  isConnectionError,
  isPartialStreamError,
  streamChat,
} from "../../src/index.ts";
import { useMswServer } from "../support/msw.ts";
import { anthropicWire } from "./fixtures/anthropic_wire.ts";
import { responsesWire } from "./fixtures/responses_wire.ts";
import {
  answer,
  chatWire,
  collect,
  errorResponse,
  optionsFor,
  sseResponse,
  upstream,
  type WireFixture,
  WIRES,
} from "./protocol_wire.ts";

const server = useMswServer();

const BASE = "https://llm.test/v1";

const options = optionsFor(BASE, "m-1");

/** A stream that delivers `texts` and then loses the connection. */
const cutAfter = (wire: WireFixture, req: Request, ...texts: string[]): Response =>
  sseResponse(req, [...wire.start(), ...texts.map((t) => wire.text(t))], "drop");
const complete = (wire: WireFixture, req: Request, ...texts: string[]): Response =>
  sseResponse(req, answer(wire, ...texts));

const FALLBACK = "https://fallback.test/v1";
/** Chat, `onPartial: "continue"` and no retries, with a fallback at FALLBACK speaking `wire`. */
const continueOnto = (wire: WireFixture): ReturnType<typeof options> =>
  options(chatWire, {
    onPartial: "continue",
    maxRetries: 0,
    fallbacks: [{ baseURL: FALLBACK, protocol: wire.protocol, body: wire.body("m-2") }],
  });

describe.each(WIRES)("$protocol partial stream", (wire) => {
  test("'throw' (default) rejects with PartialStreamError and makes no second request", async () => {
    const up = upstream(server, BASE, wire, (_n, req) => cutAfter(wire, req, "Hello, ", "wor"));
    const run = await collect(streamChat(options(wire)));
    expect(isPartialStreamError(run.error)).toBe(true);
    if (!isPartialStreamError(run.error)) return;
    // Cut off: "error", never "length" (which means the token limit was reached).
    expect(run.error.partial).toMatchObject({ content: "Hello, wor", finishReason: "error" });
    expect(run.error.attempts).toBe(1);
    expect(up.count).toBe(1);
  });

  test("'return' resolves with partial: true, the error, and no retry", async () => {
    const up = upstream(server, BASE, wire, (_n, req) => cutAfter(wire, req, "Hello, ", "wor"));
    const run = await collect(streamChat(options(wire, { onPartial: "return" })));
    expect(run.error).toBeUndefined();
    expect(run.result).toMatchObject({
      content: "Hello, wor",
      partial: true,
      finishReason: "error",
      attempts: 1,
      target: { index: 0, baseURL: BASE, protocol: wire.protocol },
    });
    expect(isConnectionError(run.result?.error)).toBe(true);
    expect(run.events.some((e) => e.type === "retry")).toBe(false);
    expect(up.count).toBe(1);
  });

  test("'retry' starts over: the answer is the new attempt's alone, as if nothing had arrived", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (n, req) =>
        n === 1 ? cutAfter(wire, req, "Hello, ", "wor") : complete(wire, req, "Hi ", "again"),
    );
    const result = await streamChat(options(wire, { onPartial: "retry" })).result;
    expect(result).toMatchObject({ content: "Hi again", attempts: 2 });
    expect(result.partial).toBeUndefined();
    expect(up.count).toBe(2);
  });

  test("'retry' cannot be iterated (the abandoned attempt's output would be seen twice): a TypeError, nothing sent", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (n, req) => n === 1 ? cutAfter(wire, req, "Hel") : complete(wire, req, "Hello"),
    );
    const stream = streamChat(options(wire, { onPartial: "retry" }));
    const iterating = async () => {
      for await (const _event of stream) break;
    };
    await expect(iterating()).rejects.toThrow(
      new TypeError(
        'stopstream: onPartial "retry" repeats output, so it cannot be iterated; use `result`',
      ),
    );
    expect(up.count).toBe(0);
    // The same stream still answers through `result`.
    expect((await stream.result).content).toBe("Hello");
    expect(up.count).toBe(2);
  });

  test("'retry' falls back once the target's retries are used up; the last error has no partial", async () => {
    const up = upstream(server, BASE, wire, (_n, req) => cutAfter(wire, req, "Hel"));
    const other = upstream(
      server,
      "https://other.test/v1",
      wire,
      (_n, req) => complete(wire, req, "ok"),
    );
    const result = await streamChat(options(wire, {
      onPartial: "retry",
      maxRetries: 1,
      fallbacks: [{ baseURL: "https://other.test/v1", apiKey: "sk-other" }],
    })).result;
    expect(result).toMatchObject({ content: "ok", attempts: 3, target: { index: 1 } });
    expect(up.count).toBe(2);
    expect(other.count).toBe(1);
    const failed = await streamChat(options(wire, { onPartial: "retry", maxRetries: 1 })).result
      .catch((e: unknown) => e);
    expect(isConnectionError(failed)).toBe(true);
    expect(isPartialStreamError(failed)).toBe(false);
  });

  test("'continue' with a tool call in flight behaves as 'throw'", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (_n, req) =>
        sseResponse(req, [
          ...wire.start(),
          wire.text("Let me look."),
          wire.toolCall("call_1", "search", '{"q":'),
        ], "drop"),
    );
    const run = await collect(streamChat(options(wire, { onPartial: "continue" })));
    expect(isPartialStreamError(run.error)).toBe(true);
    // Unfinished tool arguments in a cut-off stream: the stream broke, so "error", not "length".
    if (isPartialStreamError(run.error)) {
      expect(run.error.partial.toolCalls[0]?.arguments).toBe('{"q":');
      expect(run.error.partial.finishReason).toBe("error");
    }
    expect(up.count).toBe(1);
  });

  test("'continue' with reasoning in flight behaves as 'throw'", async () => {
    const up = upstream(
      server,
      BASE,
      wire,
      (_n, req) =>
        sseResponse(req, [...wire.start(), wire.text("So"), wire.reasoning("hmm, let me")], "drop"),
    );
    const run = await collect(streamChat(options(wire, { onPartial: "continue" })));
    expect(isPartialStreamError(run.error)).toBe(true);
    expect(up.count).toBe(1);
  });
});

describe("'continue' asks for the rest", () => {
  test("openai-chat: the mock receives a prefix request; the caller sees no duplicated text", async () => {
    const up = upstream(
      server,
      BASE,
      chatWire,
      (n, req) =>
        n === 1
          ? cutAfter(chatWire, req, "The quick brown", " fox")
          : complete(chatWire, req, " jumps."),
    );
    const run = await collect(streamChat(options(chatWire, { onPartial: "continue" })));
    expect(run.text).toBe("The quick brown fox jumps.");
    expect(run.result?.output).toEqual({
      role: "assistant",
      content: "The quick brown fox jumps.",
    });
    expect(run.result).toMatchObject({
      content: "The quick brown fox jumps.",
      continuations: 1,
      attempts: 2,
      finishReason: "stop",
    });
    expect(run.result?.partial).toBeUndefined();
    expect(up.bodies[1]).toMatchObject({
      stream: true,
      messages: [
        { role: "user", content: "Hi" },
        { role: "assistant", content: "The quick brown fox", prefix: true },
      ],
    });
    expect(up.count).toBe(2);
  });

  test("anthropic: an assistant prefill, trailing whitespace trimmed, re-sent space skipped", async () => {
    const up = upstream(
      server,
      BASE,
      anthropicWire,
      (n, req) =>
        n === 1
          ? cutAfter(anthropicWire, req, "The answer", " is ")
          : complete(anthropicWire, req, " forty", "-two."),
    );
    const run = await collect(streamChat(options(anthropicWire, { onPartial: "continue" })));
    expect(run.text).toBe("The answer is forty-two.");
    expect(run.result).toMatchObject({ content: "The answer is forty-two.", continuations: 1 });
    // The turn to send back is one text block, as if the answer had never been cut.
    expect(run.result?.output).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "The answer is forty-two." }],
    });
    expect(up.bodies[1]!.messages).toEqual([
      { role: "user", content: "Hi" },
      { role: "assistant", content: "The answer is" },
    ]);
    expect(up.count).toBe(2);
  });

  test("anthropic: a continuation that does not re-send the space loses nothing", async () => {
    const up = upstream(
      server,
      BASE,
      anthropicWire,
      (n, req) =>
        n === 1
          ? cutAfter(anthropicWire, req, "One, two,\n")
          : complete(anthropicWire, req, "three."),
    );
    const run = await collect(streamChat(options(anthropicWire, { onPartial: "continue" })));
    expect(run.result?.content).toBe("One, two,\nthree.");
    expect(run.text).toBe(run.result?.content);
    expect(up.count).toBe(2);
  });

  test("several joins are counted, each request carrying everything so far", async () => {
    const up = upstream(
      server,
      BASE,
      chatWire,
      (n, req) =>
        n === 1
          ? cutAfter(chatWire, req, "a")
          : n === 2
          ? cutAfter(chatWire, req, "b")
          : complete(chatWire, req, "c"),
    );
    const run = await collect(
      streamChat(options(chatWire, { onPartial: "continue", maxRetries: 3 })),
    );
    expect(run.result).toMatchObject({ content: "abc", continuations: 2, attempts: 3 });
    expect(run.text).toBe("abc");
    const prefixes = up.bodies.map((b) =>
      (b.messages as Array<{ content: string }>).at(-1)!.content
    );
    expect(prefixes).toEqual(["Hi", "a", "ab"]);
    expect(up.count).toBe(3);
  });

  test("a continuation that fails before new content is retried with the same prefix", async () => {
    const up = upstream(
      server,
      BASE,
      chatWire,
      (n, req) =>
        n === 1
          ? cutAfter(chatWire, req, "Hello")
          : n === 2
          ? errorResponse(chatWire, 503)
          : complete(chatWire, req, " world"),
    );
    const run = await collect(streamChat(options(chatWire, { onPartial: "continue" })));
    expect(run.result).toMatchObject({ content: "Hello world", continuations: 1, attempts: 3 });
    expect(up.bodies[1]).toEqual(up.bodies[2]);
    expect(up.count).toBe(3);
  });

  test("continuations share the retry budget: when it runs out, the policy is 'throw'", async () => {
    const up = upstream(server, BASE, chatWire, (n, req) => cutAfter(chatWire, req, `part${n} `));
    const run = await collect(
      streamChat(options(chatWire, { onPartial: "continue", maxRetries: 1 })),
    );
    expect(isPartialStreamError(run.error)).toBe(true);
    if (isPartialStreamError(run.error)) {
      expect(run.error.partial).toMatchObject({
        content: "part1 part2 ",
        continuations: 1,
        finishReason: "error",
      });
    }
    expect(run.text).toBe("part1 part2 ");
    expect(up.count).toBe(2);
  });

  test("a continuation refused with a non-retryable status ends as 'throw' with the text so far", async () => {
    const up = upstream(
      server,
      BASE,
      chatWire,
      (n, req) => n === 1 ? cutAfter(chatWire, req, "Hello") : errorResponse(chatWire, 400),
    );
    const run = await collect(streamChat(options(chatWire, { onPartial: "continue" })));
    expect(isPartialStreamError(run.error)).toBe(true);
    if (isPartialStreamError(run.error)) {
      expect(run.error.partial.content).toBe("Hello");
      expect(isAPIStatusError(run.error.cause) && run.error.cause.status).toBe(400);
    }
    expect(up.count).toBe(2);
  });

  test("openai-responses cannot continue: 'continue' behaves as 'throw'", async () => {
    const up = upstream(
      server,
      BASE,
      responsesWire,
      (_n, req) => cutAfter(responsesWire, req, "Half"),
    );
    const run = await collect(streamChat(options(responsesWire, { onPartial: "continue" })));
    expect(isPartialStreamError(run.error)).toBe(true);
    expect(up.count).toBe(1);
  });

  test("a target out of retries hands the rest to the next fallback, another protocol's", async () => {
    const primary = upstream(server, BASE, chatWire, (_n, req) => cutAfter(chatWire, req, "Hello"));
    const fallback = upstream(
      server,
      FALLBACK,
      anthropicWire,
      (_n, req) => complete(anthropicWire, req, " world."),
    );
    const seen: string[] = [];
    const run = await collect(
      streamChat(continueOnto(anthropicWire)),
      (e) => {
        if (e.type === "text" || e.type === "fallback") seen.push(e.type);
      },
    );
    expect(run.text).toBe("Hello world.");
    expect(run.result).toMatchObject({ content: "Hello world.", continuations: 1 });
    expect(seen).toEqual(["text", "fallback", "text"]);
    expect(primary.count).toBe(1);
    expect(fallback.count).toBe(1);
    expect((fallback.bodies[0]!.messages as unknown[]).at(-1)).toEqual({
      role: "assistant",
      content: "Hello",
    });
  });

  test("a next fallback that cannot continue (Responses): 'continue' ends as 'throw' there", async () => {
    upstream(server, BASE, chatWire, (_n, req) => cutAfter(chatWire, req, "Hello"));
    const fallback = upstream(
      server,
      FALLBACK,
      responsesWire,
      (_n, req) => complete(responsesWire, req, "Hi again"),
    );
    const run = await collect(
      streamChat(continueOnto(responsesWire)),
    );
    expect(isPartialStreamError(run.error)).toBe(true);
    expect(fallback.count).toBe(0);
  });

  test("an interrupt during a continuation's backoff stops everything", async () => {
    const controller = new AbortController();
    const up = upstream(server, BASE, chatWire, (_n, req) => cutAfter(chatWire, req, "Hello"));
    const run = await collect(
      streamChat(options(chatWire, {
        onPartial: "continue",
        signal: controller.signal,
        retry: { initialDelayMs: 10_000 },
      })),
      (e) => {
        if (e.type === "retry") controller.abort();
      },
    );
    expect((run.error as Error).name).toBe("InterruptedError");
    expect(up.count).toBe(1);
  });
});
