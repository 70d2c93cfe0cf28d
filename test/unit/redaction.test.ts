/**
 * Secrets are redacted before anything is cut: whatever an upstream echoes, and wherever a cut
 * falls (200 characters of a message, 64 KiB of an error body), no 8-character prefix of the
 * key a request carried survives in an exception: message, stack, every field (body, data,
 * headers, a redirect's target…), cause.
 */

import { describe, expect, test } from "vitest";
import type { APIStatusError, RedirectError } from "../../src/core/error_classes.ts";
import { excerpt, redact } from "../../src/core/redact.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import { chunk, sse } from "../support/sse.ts";

const KEY = "sk-proj-Zq3Xv9Lm2Rt8Wy4Nb6Hc1Kd5Fg7Jp0Ts";
const HEAD = KEY.slice(0, 8);

/** Every string an error carries, in any of its fields, down its cause chain. */
function textsOf(error: unknown): string[] {
  const texts: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) {
    texts.push(e.message, e.stack ?? "");
    for (const value of Object.values(e)) texts.push(JSON.stringify(value) ?? "");
  }
  return texts;
}

/** The positions that put the key across `cut`: from wholly before it to wholly after. */
function across(cut: number): number[] {
  return Array.from({ length: KEY.length + 2 }, (_, i) => cut - KEY.length - 1 + i);
}

async function errorFor(
  responses: Array<() => Response>,
  extra: Partial<StreamChatOptions> = {},
): Promise<unknown> {
  let n = 0;
  const fetch = () => Promise.resolve(responses[Math.min(n++, responses.length - 1)]!());
  return await streamChat({
    baseURL: "https://llm.test/v1",
    apiKey: KEY,
    body: { model: "m", messages: [] },
    maxRetries: 0,
    fetch,
    ...extra,
  }).result.catch((error: unknown) => error);
}

describe("redact", () => {
  test("redacting before the cut leaves no 8-character head of the key at any cut position", () => {
    for (const cut of [200, 500]) {
      for (const at of across(cut)) {
        const text = "x".repeat(Math.max(0, at)) + KEY + " and more";
        const out = excerpt(text, cut, [KEY]);
        expect(out).not.toContain(HEAD);
        expect(out.length).toBeLessThanOrEqual(cut);
      }
    }
  });

  test("a key already cut short, or echoed masked after its head, is redacted as a whole token", () => {
    expect(redact(`key: ${KEY.slice(0, 12)}`, [KEY])).toBe("key: [redacted]");
    expect(redact(`key: ${HEAD}****************Ts.`, [KEY])).toBe("key: [redacted].");
    expect(redact(`a ${KEY} b ${KEY}`, [KEY])).toBe("a [redacted] b [redacted]");
    // Values shorter than 8 characters are never treated as secrets (docs/errors.md); 8 are.
    expect(redact("the key is short", ["short"])).toBe("the key is short");
    expect(redact("the key is sk-1234", ["sk-1234"])).toBe("the key is sk-1234");
    expect(redact("the key is sk-12345", ["sk-12345"])).toBe("the key is [redacted]");
  });
});

describe("the client never puts its key in an exception", () => {
  const text = (status: number, body: string, type = "text/plain") => () =>
    new Response(body, { status, headers: { "content-type": type } });

  test("an HTTP error body echoing the key, across the 200-character message cut", async () => {
    // The message quotes the first 200 characters of the provider's message.
    for (const at of across(200)) {
      const error = await errorFor([text(400, "e".repeat(at) + KEY + " rest")]);
      expect((error as Error).name).toBe("APIStatusError");
      for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
    }
  });

  test("an error body echoing the key across the 64 KiB body cap", async () => {
    for (const at of across(64 * 1024)) {
      const error = await errorFor([text(502, "e".repeat(at) + KEY + " rest")]);
      expect((error as Error).name).toBe("APIStatusError");
      for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
    }
  });

  test("a JSON error message and an HTML page with status 200 echoing the key", async () => {
    const json = () => Response.json({ error: { message: `bad key ${KEY}` } }, { status: 401 });
    for (const t of textsOf(await errorFor([json]))) expect(t).not.toContain(HEAD);
    for (const at of across(200)) {
      const page = text(200, `<html>${"p".repeat(at)}${KEY}</html>`, "text/html");
      const error = await errorFor([page]);
      expect((error as Error).name).toBe("StreamProtocolError");
      for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
    }
  });

  test("an in-stream error event echoing the key (Anthropic: the key travels as x-api-key)", async () => {
    const stream = () =>
      new Response(
        sse({ type: "error", error: { type: "overloaded_error", message: `for ${KEY}` } }, "error"),
        { headers: { "content-type": "text/event-stream" } },
      );
    const error = await errorFor([stream], { protocol: "anthropic-messages" });
    expect((error as Error).name).toBe("UpstreamStreamError");
    for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
  });

  test("a failure after content: the PartialStreamError and its cause hold no key", async () => {
    const stream = () =>
      new Response(
        sse(chunk({ content: "Hel" })) + sse({ error: { message: `upstream died, key ${KEY}` } }),
        { headers: { "content-type": "text/event-stream" } },
      );
    const error = await errorFor([stream]);
    expect((error as Error).name).toBe("PartialStreamError");
    for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
  });

  test("a non-streaming answer that is not JSON, across its 200-character excerpt", async () => {
    const refused = () =>
      Response.json({ error: { message: "Streaming is not supported", param: "stream" } }, {
        status: 400,
      });
    for (const at of across(200)) {
      const error = await errorFor([refused, text(200, "n".repeat(at) + KEY)]);
      expect((error as Error).name).toBe("StreamProtocolError");
      for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
    }
  });

  test("a response header of an HTTP error echoing the key", async () => {
    const echo = () =>
      Response.json({ error: { message: "bad key" } }, {
        status: 401,
        headers: { "x-echo": `key=${KEY}` },
      });
    const error = await errorFor([echo]);
    expect((error as APIStatusError).headers["x-echo"]).toBe("key=[redacted]");
    for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
  });

  test("a redirect to another origin whose host name carries the key: its targetOrigin too", async () => {
    // A URL's host is lower-cased: this key's first 8 characters survive it.
    const host = `${KEY.toLowerCase()}.evil.test`;
    const away = () =>
      new Response(null, { status: 307, headers: { location: `https://${host}/v1` } });
    const error = await errorFor([away]);
    expect((error as RedirectError).reason).toBe("cross-origin");
    expect((error as RedirectError).targetOrigin).toBe("https://[redacted].evil.test");
    for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
  });

  test("a key sent in a custom header is redacted too", async () => {
    const error = await errorFor([text(403, `denied for ${KEY}`)], {
      apiKey: undefined,
      headers: { "x-goog-api-key": KEY },
    });
    for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
  });
});

describe("a cause the client did not make is redacted or replaced, never a TypeError", () => {
  const failing = (error: Error) => () => Promise.reject(error);

  test("a fetch rejecting with a DOMException (its message a getter) is a ConnectionError, retried", async () => {
    let calls = 0;
    const fetch = () => {
      calls++;
      return Promise.reject(new DOMException("The operation timed out.", "TimeoutError"));
    };
    const error = await errorFor([], { fetch, maxRetries: 2, retry: { initialDelayMs: 1 } });
    expect((error as Error).name).toBe("ConnectionError");
    expect(((error as Error).cause as Error).name).toBe("TimeoutError");
    expect(calls).toBe(3);
  });

  test("a DOMException whose message carries the key: the key is gone, the cause stays", async () => {
    const error = await errorFor([], {
      fetch: failing(new DOMException(`timed out calling with ${KEY}`, "TimeoutError")),
    });
    expect((error as Error).name).toBe("ConnectionError");
    expect((error as Error).cause).toBeInstanceOf(DOMException);
    for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
  });

  test("a frozen cause under a frozen parent: both are replaced by redacted copies", async () => {
    const inner = Object.freeze(new TypeError(`fetch failed for ${KEY}`));
    const outer = Object.freeze(new Error("fetch failed", { cause: inner }));
    const error = await errorFor([], { fetch: failing(outer) });
    expect((error as Error).name).toBe("ConnectionError");
    const cause = (error as Error).cause as Error;
    expect([cause.message, (cause.cause as Error).name]).toEqual(["fetch failed", "TypeError"]);
    for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
  });

  test("a frozen cause carrying the key is replaced by a redacted copy", async () => {
    const frozen = Object.freeze(new TypeError(`fetch failed for ${KEY}`));
    const error = await errorFor([], { fetch: failing(frozen) });
    expect((error as Error).name).toBe("ConnectionError");
    const cause = (error as Error).cause as Error;
    expect(cause).not.toBe(frozen);
    expect(cause.name).toBe("TypeError");
    expect(cause.message).toBe("fetch failed for [redacted]");
    for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
  });
});
