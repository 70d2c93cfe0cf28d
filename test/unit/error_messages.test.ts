/**
 * Errors a person can read: every message is one sentence (one `stopstream:` prefix at most)
 * saying what happened and what to do; the chain of causes stays in `cause`, never in the text.
 */

import { describe, expect, test } from "vitest";
import {
  APIStatusError,
  ConnectionError,
  InterruptedError,
  PartialStreamError,
  RedirectError,
  type RedirectReason,
  streamChat,
  StreamProtocolError,
  TimeoutError,
  UpstreamStreamError,
} from "../../src/index.ts";
import { CONNECTION_LOST } from "../../src/core/error_messages.ts";
import { describeFailure } from "../../src/relay/describe_failure.ts";
import { createRelay } from "../../src/relay/app.ts";
import type { ChatResult } from "../../src/core/chat_result.ts";
import { jsonReply, networkError, sseReply, textReply, useMockUpstream } from "../support/msw.ts";
import { chunk, sse } from "../support/sse.ts";
import { options, rejection } from "../support/chat.ts";

const upstream = useMockUpstream();

const PARTIAL: ChatResult = {
  id: "c",
  model: "m",
  content: "Hel",
  reasoning: "",
  toolCalls: [],
  finishReason: "error",
  attempts: 1,
};

/** One sentence: one prefix, no sentence break outside the quoted provider text. */
function expectOneSentence(message: string): void {
  expect(message.match(/stopstream:/g)?.length ?? 0).toBeLessThanOrEqual(1);
  const ours = message.replace(/\("[^]*"\)/g, "(…)");
  expect(ours).not.toMatch(/[.!?] [A-Za-z]/);
  expect(ours).not.toMatch(/\n/);
}

describe("the client's errors", () => {
  test.each<[string, Error, string]>([
    [
      "TimeoutError headers",
      new TimeoutError("headers", 60_000),
      "stopstream: the server sent no response within 60000 ms (timeouts.headersMs); try again " +
      "later, or raise the limit",
    ],
    [
      "TimeoutError first-event",
      new TimeoutError("first-event", 600_000),
      "stopstream: the server sent no data within 600000 ms of answering " +
      "(timeouts.firstEventMs); try again later, or raise the limit",
    ],
    [
      "TimeoutError idle",
      new TimeoutError("idle", 30_000),
      "stopstream: the stream went silent for 30000 ms (timeouts.idleMs; pings do not count); " +
      "try again later, or raise the limit",
    ],
    [
      "APIStatusError 401 with the provider's message",
      new APIStatusError(401, {}, { error: { message: "Incorrect API key provided: sk-…1234." } }),
      'stopstream: the server answered HTTP 401 ("Incorrect API key provided: sk-…1234"); ' +
      "check the API key",
    ],
    [
      "APIStatusError 200 whose body reports an error the protocol does not know",
      new APIStatusError(200, {}, { error: { message: "Something odd" } }),
      'stopstream: the server answered HTTP 200 with an error ("Something odd"); check the request',
    ],
    [
      "APIStatusError 404",
      new APIStatusError(404, {}, ""),
      "stopstream: the server answered HTTP 404; check the base URL and the model name",
    ],
    [
      "APIStatusError 502 with an HTML page (which says nothing worth quoting)",
      new APIStatusError(502, {}, "<html><body><h1>502 Bad Gateway</h1></body></html>"),
      "stopstream: the server answered HTTP 502; try again later",
    ],
    [
      "APIStatusError 429",
      new APIStatusError(429, {}, { error: "Rate limit reached" }),
      'stopstream: the server answered HTTP 429 ("Rate limit reached"); wait and try again, or ' +
      "check your quota",
    ],
    [
      "UpstreamStreamError, transient, from a relay that prefixed its own message",
      new UpstreamStreamError("stopstream: Overloaded.\n", {}, "overloaded_error", true),
      'stopstream: the provider reported an error ("Overloaded"); try again later',
    ],
    [
      "UpstreamStreamError, not transient",
      new UpstreamStreamError("prompt is too long", {}, "invalid_request_error", false),
      'stopstream: the provider reported an error ("prompt is too long"); check the request',
    ],
  ])("%s", (_, error, message) => {
    expect(error.message).toBe(message);
    expectOneSentence(error.message);
  });

  test.each<[string, unknown, string]>([
    [
      "a connection loss",
      new ConnectionError("stopstream: the connection was lost before the answer ended; try again"),
      "the connection was lost",
    ],
    [
      "an idle timeout",
      new TimeoutError("idle", 5_000),
      "the stream went silent for 5000 ms (timeouts.idleMs; pings do not count)",
    ],
    [
      "a total timeout",
      new TimeoutError("total", 9_000),
      "the call took over 9000 ms (timeouts.totalMs)",
    ],
    [
      "a provider's error (its text stays in the cause)",
      new UpstreamStreamError("Overloaded", {}, "overloaded_error", true),
      "the provider reported an error",
    ],
    [
      "a malformed stream",
      new StreamProtocolError("stopstream: a data line is not a JSON object (…)"),
      "the server sent a malformed stream",
    ],
    ["a refused continuation", new APIStatusError(400, {}, ""), "the server answered HTTP 400"],
  ])("PartialStreamError after %s says so in one sentence, without the cause's text", (
    _,
    cause,
    what,
  ) => {
    const error = new PartialStreamError(PARTIAL, cause);
    expect(error.message).toBe(
      `stopstream: ${what} after part of the answer had arrived; that part is kept, and ` +
        "sending the request again gets a complete answer",
    );
    expect(error.message).not.toContain((cause as Error).message.replace(/^stopstream: /, ""));
    expect(error.cause).toBe(cause);
    expectOneSentence(error.message);
  });

  test("errors from real failures: no chain of causes in the text", async () => {
    upstream.reply(networkError);
    const refused = await rejection(streamChat(options({ maxRetries: 0 })).result);
    expect((refused as Error).message).toBe(
      "stopstream: the request could not be sent (network, DNS, TLS or CORS); check the base URL",
    );
    expect((refused as Error).cause).toBeInstanceOf(Error);

    upstream.reply(sseReply([sse(chunk({ content: "Hel" })), { error: new Error("ECONNRESET") }]));
    const cut = await rejection(streamChat(options()).result);
    expect((cut as Error).message).toMatch(/^stopstream: the connection was lost after part/);
    expect(((cut as Error).cause as Error).message).toBe(CONNECTION_LOST);

    upstream.reply(textReply(200, "<!doctype html>\n<title>Sign in</title>", "text/html"));
    const html = await rejection(streamChat(options()).result);
    expect((html as Error).message).toBe(
      'stopstream: the server answered HTTP 200 with text/html, not an event stream ("' +
        '<!doctype html> <title>Sign in</title>"); check the base URL and the protocol',
    );

    upstream.reply(jsonReply(400, { error: { message: "Unknown parameter: 'foo'." } }));
    const bad = await rejection(streamChat(options()).result);
    expect((bad as Error).message).toBe(
      "stopstream: the server answered HTTP 400 (\"Unknown parameter: 'foo'\"); check the request",
    );
    for (const error of [refused, cut, html, bad]) expectOneSentence((error as Error).message);
  });

  test("InterruptedError says who stopped the call", () => {
    expect(new InterruptedError(new Error("user left")).message).toBe(
      "stopstream: the call was interrupted by its AbortSignal; nothing more is sent or read",
    );
  });
});

describe("the relay's errors: its own sentence, never the client's chain", () => {
  test("an upstream silent past the timeout before it answered: HTTP 504, the relay's sentence", async () => {
    let requests = 0;
    const app = createRelay({
      upstreams: [{ baseURL: "https://silent.test/v1" }],
      maxRetries: 0,
      timeouts: { headersMs: 50 },
      // Headers never come; the call's own timeout aborts the request.
      fetch: (_input, init) => {
        requests++;
        return new Promise((_, reject) =>
          init?.signal?.addEventListener("abort", () => reject(init.signal!.reason))
        );
      },
    });
    const response = await app.request("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.status).toBe(504);
    expect(requests).toBe(1);
    const { error } = await response.json();
    expect(error).toMatchObject({
      message: "The upstream sent no response within 50 ms; try again later.",
      code: "upstream_timeout",
    });
  });

  test.each<[string, unknown, string, string | null]>([
    [
      "a connection failure",
      new ConnectionError("stopstream: the request could not be sent (…)"),
      "The connection to the upstream failed; try again later.",
      "upstream_connection",
    ],
    [
      "an idle timeout",
      new TimeoutError("idle", 30_000),
      "The upstream went silent for 30000 ms; try again later.",
      "upstream_timeout",
    ],
    [
      "a 503 that outlasted the retries",
      new APIStatusError(503, {}, { error: { message: "Overloaded." } }),
      'The upstream answered HTTP 503 ("Overloaded"); try again later.',
      "upstream_status",
    ],
    [
      "a malformed stream (whose snippet stays private)",
      new StreamProtocolError("stopstream: the server answered HTTP 200 with text/html (…)"),
      "The upstream's answer was not a valid event stream; check the relay's upstream " +
      "configuration (base URL and protocol).",
      "upstream_protocol",
    ],
    [
      "a provider's error",
      new UpstreamStreamError("Overloaded", {}, "overloaded_error", true),
      'The upstream reported an error ("Overloaded"); try again later.',
      "overloaded_error",
    ],
    [
      "a drop after content",
      new PartialStreamError(PARTIAL, new ConnectionError("stopstream: lost mid-stream")),
      "The connection to the upstream was lost after part of the answer was sent; send the " +
      "request again.",
      "incomplete_stream",
    ],
    [
      "a provider's error after content",
      new PartialStreamError(PARTIAL, new UpstreamStreamError("Overloaded", {}, undefined, true)),
      'The upstream reported an error ("Overloaded") after part of the answer was sent; send ' +
      "the request again.",
      "incomplete_stream",
    ],
  ])("%s", (_, error, message, code) => {
    const failure = describeFailure(error, []);
    expect(failure.message).toBe(message);
    expect(failure.code).toBe(code);
    expect(failure.message).not.toMatch(/stopstream/);
  });

  test.each<[RedirectReason, string]>([
    [
      "cross-origin",
      "The upstream redirected the request to another origin, which the relay does not follow " +
      "(the key must not go there); check the relay's upstream base URL (the relay log has " +
      "where it pointed).",
    ],
    [
      "loop",
      "The upstream redirected the request in a loop; check the relay's upstream base URL (the " +
      "relay log has where it pointed).",
    ],
    [
      "too-many",
      "The upstream redirected the request more than 5 times, more than the relay follows; " +
      "check the relay's upstream base URL (the relay log has where it pointed).",
    ],
    [
      "credentials",
      "The upstream redirected the request to a URL with credentials in it, which the relay " +
      "does not follow; check the relay's upstream base URL (the relay log has where it pointed).",
    ],
    [
      "see-other",
      "The upstream answered 303 See Other, which asks for a GET instead of the POST, so the " +
      "relay did not follow it; check the relay's upstream base URL (the relay log has where it " +
      "pointed).",
    ],
    [
      "opaque",
      "The upstream redirected the request, and the runtime hid where to, so the relay could " +
      "not follow it; check the relay's upstream base URL.",
    ],
  ])("a redirect the relay does not follow (%s) says what it was", (reason, message) => {
    // An opaque redirect has no target to log (a browser's fetch hides it).
    const target = reason === "opaque" ? undefined : "https://internal.example";
    const failure = describeFailure(
      new RedirectError(reason, reason === "opaque" ? 0 : 307, target),
      [],
    );
    expect(failure).toMatchObject({ status: 502, code: "upstream_redirect", message });
    expect(failure.message).not.toContain("internal.example");
  });

  test("4xx answers keep the upstream's own message; keys in it are redacted", () => {
    // (A 401/403 is the relay's own key refused: a 502 of its own, in test/workers/secrets.)
    const error = new APIStatusError(400, {}, {
      error: { message: "The key sk-live-0123456789 may not use this model." },
    });
    expect(describeFailure(error, ["sk-live-0123456789"]).message).toBe(
      "The key [redacted] may not use this model.",
    );
  });
});
