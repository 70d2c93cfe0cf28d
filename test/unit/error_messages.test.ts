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
  streamChat,
  StreamProtocolError,
  TimeoutError,
  UpstreamStreamError,
} from "../../src/index.ts";
import { CONNECTION_LOST } from "../../src/core/error_messages.ts";
import { jsonReply, networkError, sseReply, textReply, useMockUpstream } from "../support/msw.ts";
import { chunk, sse } from "../support/sse.ts";
import { options, rejection } from "../support/chat.ts";
import { describeRelayFailures, PARTIAL } from "../support/relay_failures.ts";

const upstream = useMockUpstream();

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

// The relay's sentences: one set of cases for Node and workerd (test/support/relay_failures.ts).
describeRelayFailures();
