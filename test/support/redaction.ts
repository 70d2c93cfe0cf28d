/**
 * Secrets are redacted before anything is cut, as one set of cases that both runtimes run
 * (test/unit/redaction.test.ts on Node, test/workers/redaction.test.ts in workerd):
 *
 * - the client: whatever an upstream echoes, and wherever a cut falls (200 characters of a
 *   message, 64 KiB of an error body), no 8-character prefix of the key a request carried
 *   survives in an exception: message, stack, every field (body, data, headers, a redirect's
 *   target…), cause;
 * - the relay: an upstream that echoes the relay's key anywhere around the 500-character cut of
 *   the messages it passes on leaks no 8-character prefix of it, in an error body, an error
 *   event or a log line.
 *
 * Runtime-neutral: Web APIs only, so workerd can import it.
 *
 * @module
 */

import { afterEach, describe, expect, test, vi } from "vitest";
import type { APIStatusError, RedirectError } from "../../src/core/error_classes.ts";
import { excerpt, redact } from "../../src/core/redact.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import { createRelay } from "../../src/relay/app.ts";
import { ANTHROPIC_STREAM } from "./protocol_streams.ts";
import { chunk, sse } from "./sse.ts";

/** The positions that put `key` across `cut`: from wholly before it to wholly after. */
export function across(key: string, cut: number): number[] {
  return Array.from({ length: key.length + 2 }, (_, i) => cut - key.length - 1 + i);
}

/** Every string an error carries, in any of its fields, down its cause chain. */
export function textsOf(error: unknown): string[] {
  const texts: string[] = [];
  for (let e = error; e instanceof Error; e = e.cause) {
    texts.push(e.message, e.stack ?? "");
    for (const value of Object.values(e)) texts.push(JSON.stringify(value) ?? "");
  }
  return texts;
}

/**
 * The client's cases, one test each.
 *
 * @example
 * ```ts
 * describeClientRedaction();
 * ```
 */
export function describeClientRedaction(): void {
  const KEY = "sk-proj-Zq3Xv9Lm2Rt8Wy4Nb6Hc1Kd5Fg7Jp0Ts";
  const HEAD = KEY.slice(0, 8);

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
        for (const at of across(KEY, cut)) {
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
      for (const at of across(KEY, 200)) {
        const error = await errorFor([text(400, "e".repeat(at) + KEY + " rest")]);
        expect((error as Error).name).toBe("APIStatusError");
        for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
      }
    });

    test("an error body echoing the key across the 64 KiB body cap", async () => {
      for (const at of across(KEY, 64 * 1024)) {
        const error = await errorFor([text(502, "e".repeat(at) + KEY + " rest")]);
        expect((error as Error).name).toBe("APIStatusError");
        for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
      }
    });

    test("a JSON error message and an HTML page with status 200 echoing the key", async () => {
      const json = () => Response.json({ error: { message: `bad key ${KEY}` } }, { status: 401 });
      for (const t of textsOf(await errorFor([json]))) expect(t).not.toContain(HEAD);
      for (const at of across(KEY, 200)) {
        const page = text(200, `<html>${"p".repeat(at)}${KEY}</html>`, "text/html");
        const error = await errorFor([page]);
        expect((error as Error).name).toBe("StreamProtocolError");
        for (const t of textsOf(error)) expect(t).not.toContain(HEAD);
      }
    });

    test("an in-stream error event echoing the key (Anthropic: the key travels as x-api-key)", async () => {
      const stream = () =>
        new Response(
          sse(
            { type: "error", error: { type: "overloaded_error", message: `for ${KEY}` } },
            "error",
          ),
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
      for (const at of across(KEY, 200)) {
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
}

/** Everything the relay logs while `run` runs. */
async function logged(run: () => Promise<void>): Promise<string> {
  const lines: unknown[][] = [];
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => lines.push(args));
  }
  await run();
  return lines.map((args) => args.map(String).join(" ")).join("\n");
}

/**
 * The relay's cases, one test each.
 *
 * @example
 * ```ts
 * describeRelayRedaction();
 * ```
 */
export function describeRelayRedaction(): void {
  const KEY = "sk-ant-api03-Zq3Xv9Lm2Rt8Wy4Nb6Hc1Kd5Fg7Jp0Ts";
  const HEAD = KEY.slice(0, 8);

  afterEach(() => vi.restoreAllMocks());

  function relayFor(respond: () => Response) {
    return createRelay({
      upstreams: [{ baseURL: "https://up.test/v1", apiKey: KEY, protocol: "anthropic-messages" }],
      fetch: () => Promise.resolve(respond()),
      maxRetries: 0,
    });
  }

  const postChat = (app: ReturnType<typeof relayFor>, stream: boolean) =>
    Promise.resolve(app.request("http://relay.test/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "demo",
        messages: [{ role: "user", content: "hello relay" }],
        stream,
      }),
    }));

  describe("redaction happens before the cut", () => {
    test("an upstream 4xx message echoing the key, across the 500-character cut", async () => {
      const log = await logged(async () => {
        for (const at of across(KEY, 500)) {
          const app = relayFor(() =>
            Response.json({
              type: "error",
              error: { type: "invalid_request_error", message: "m".repeat(at) + KEY + " rest" },
            }, { status: 400 })
          );
          for (const stream of [true, false]) {
            const response = await postChat(app, stream);
            expect(response.status).toBe(400);
            expect(await response.text()).not.toContain(HEAD);
          }
        }
      });
      expect(log).not.toContain(HEAD);
    });

    test("a text or HTML body echoing the key, across the 200-character log cut and the old 500 cut", async () => {
      const log = await logged(async () => {
        for (const at of [...across(KEY, 200), ...across(KEY, 500)]) {
          for (
            const [status, type] of [[400, "text/plain"], [503, "text/html"], [200, "text/html"]]
          ) {
            const app = relayFor(() =>
              new Response("t".repeat(at) + KEY + " rest", {
                status: status as number,
                headers: { "content-type": type as string },
              })
            );
            const response = await postChat(app, true);
            expect(response.status).toBe(status === 400 ? 400 : 502);
            const text = await response.text();
            expect(text).not.toContain(HEAD);
            expect(text).not.toContain("ttt"); // not echoed at all
          }
        }
      });
      expect(log).toContain("ttt"); // logged, as an excerpt
      expect(log).not.toContain(HEAD);
    });

    test("an upstream 5xx message echoing the key, across the cut", async () => {
      const log = await logged(async () => {
        for (const at of across(KEY, 500 - "The upstream answered HTTP 529: ".length)) {
          const app = relayFor(() =>
            Response.json({
              type: "error",
              error: { type: "overloaded_error", message: "m".repeat(at) + KEY },
            }, { status: 529 })
          );
          const response = await postChat(app, true);
          expect(response.status).toBe(502);
          expect(await response.text()).not.toContain(HEAD);
        }
      });
      expect(log).not.toContain(HEAD);
    });

    test("an in-stream error after content echoing the key: the error event, across the cut", async () => {
      const log = await logged(async () => {
        for (const at of across(KEY, 500)) {
          const app = relayFor(() =>
            new Response(
              [
                // Everything up to the first text delta, then the error.
                ...ANTHROPIC_STREAM.slice(0, 6),
                sse(
                  { type: "error", error: { type: "api_error", message: "m".repeat(at) + KEY } },
                  "error",
                ),
              ].join(""),
              { headers: { "content-type": "text/event-stream" } },
            )
          );
          const response = await postChat(app, true);
          const text = await response.text();
          expect(text).toContain('"error"');
          expect(text).not.toContain(HEAD);
        }
      });
      expect(log).not.toContain(HEAD);
    });
  });
}
