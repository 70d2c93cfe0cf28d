/**
 * What a person reads when a call through the relay fails, as one set of cases that both
 * runtimes run (test/unit/error_messages.test.ts on Node, test/workers/error_messages.test.ts
 * in workerd): the relay's own sentence for each kind of failure, with its code, never the chain
 * of every hop's messages ("stopstream: … stopstream: … : … : …"); and the same sentences end to
 * end, through the demo relay and its faults.
 *
 * Runtime-neutral: Web APIs only, so workerd can import it.
 *
 * @module
 */

import { describe, expect, test } from "vitest";
import {
  APIStatusError,
  ConnectionError,
  isPartialStreamError,
  isUpstreamStreamError,
  PartialStreamError,
  RedirectError,
  type RedirectReason,
  streamChat,
  StreamProtocolError,
  TimeoutError,
  UpstreamStreamError,
} from "../../src/index.ts";
import type { ChatResult } from "../../src/core/chat_result.ts";
import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import { createRelay } from "../../src/relay/app.ts";
import { describeFailure } from "../../src/relay/describe_failure.ts";

/** The answer kept when a call fails after content: "Hel". */
export const PARTIAL: ChatResult = {
  id: "c",
  model: "m",
  content: "Hel",
  reasoning: "",
  toolCalls: [],
  finishReason: "error",
  attempts: 1,
};

/** A failure the relay met, and what its caller is told. */
export interface FailureSentence {
  name: string;
  error: unknown;
  message: string;
  code: string | null;
}

/**
 * One case per kind of failure: the relay's sentence and code for it.
 *
 * @example
 * ```ts
 * for (const c of FAILURE_SENTENCES) expect(describeFailure(c.error, []).message).toBe(c.message);
 * ```
 */
export const FAILURE_SENTENCES: readonly FailureSentence[] = [
  {
    name: "a connection failure",
    error: new ConnectionError("stopstream: the request could not be sent (…)"),
    message: "The connection to the upstream failed; try again later.",
    code: "upstream_connection",
  },
  {
    name: "an idle timeout",
    error: new TimeoutError("idle", 30_000),
    message: "The upstream went silent for 30000 ms; try again later.",
    code: "upstream_timeout",
  },
  {
    name: "a 503 that outlasted the retries",
    error: new APIStatusError(503, {}, { error: { message: "Overloaded." } }),
    message: 'The upstream answered HTTP 503 ("Overloaded"); try again later.',
    code: "upstream_status",
  },
  {
    name: "a malformed stream (whose snippet stays private)",
    error: new StreamProtocolError("stopstream: the server answered HTTP 200 with text/html (…)"),
    message: "The upstream's answer was not a valid event stream; check the relay's upstream " +
      "configuration (base URL and protocol).",
    code: "upstream_protocol",
  },
  {
    name: "a provider's error",
    error: new UpstreamStreamError("Overloaded", {}, "overloaded_error", true),
    message: 'The upstream reported an error ("Overloaded"); try again later.',
    code: "overloaded_error",
  },
  {
    name: "a drop after content",
    error: new PartialStreamError(PARTIAL, new ConnectionError("stopstream: lost mid-stream")),
    message: "The connection to the upstream was lost after part of the answer was sent; send " +
      "the request again.",
    code: "incomplete_stream",
  },
  {
    name: "a provider's error after content",
    error: new PartialStreamError(
      PARTIAL,
      new UpstreamStreamError("Overloaded", {}, undefined, true),
    ),
    message: 'The upstream reported an error ("Overloaded") after part of the answer was sent; ' +
      "send the request again.",
    code: "incomplete_stream",
  },
];

/** A redirect the relay does not follow, and the sentence that says what it was. */
export const REDIRECT_SENTENCES: ReadonlyArray<readonly [RedirectReason, string]> = [
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
];

/** A demo relay that retries once, quickly, with words 1 ms apart. */
const demoRelay = () =>
  createDemoRelay({ retry: { initialDelayMs: 1, maxDelayMs: 5 }, maxRetries: 1 }, {
    wordDelayMs: 1,
  });

const CHAT = { model: "demo", messages: [{ role: "user", content: "hello relay" }] };

/** A streaming chat request with the demo fault `fault`, answered by `app`. */
function askWithFault(app: ReturnType<typeof demoRelay>, fault: string): Promise<Response> {
  return Promise.resolve(app.request("http://relay.test/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", "x-demo-fault": fault },
    body: JSON.stringify({ ...CHAT, stream: true }),
  }));
}

/** The message of the error event that ends an SSE answer. */
function lastErrorMessage(raw: string): string {
  const data = raw.split("\n").filter((line) => line.startsWith("data: {"));
  return (JSON.parse(data.at(-1)!.slice("data: ".length)) as { error: { message: string } })
    .error.message;
}

/**
 * Every case of this module, one test each, on the runtime that calls it.
 *
 * @example
 * ```ts
 * describeRelayFailures();
 * ```
 */
export function describeRelayFailures(): void {
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

    for (const { name, error, message, code } of FAILURE_SENTENCES) {
      test(name, () => {
        const failure = describeFailure(error, []);
        expect(failure.message).toBe(message);
        expect(failure.code).toBe(code);
        expect(failure.message).not.toMatch(/stopstream/);
      });
    }

    test.each(REDIRECT_SENTENCES)(
      "a redirect the relay does not follow (%s) says what it was",
      (reason, message) => {
        // An opaque redirect has no target to log (a browser's fetch hides it).
        const target = reason === "opaque" ? undefined : "https://internal.example";
        const failure = describeFailure(
          new RedirectError(reason, reason === "opaque" ? 0 : 307, target),
          [],
        );
        expect(failure).toMatchObject({ status: 502, code: "upstream_redirect", message });
        expect(failure.message).not.toContain("internal.example");
      },
    );

    test("4xx answers keep the upstream's own message; keys in it are redacted", () => {
      // (A 401/403 is the relay's own key refused: a 502 of its own, in test/workers/secrets.)
      const error = new APIStatusError(400, {}, {
        error: { message: "The key sk-live-0123456789 may not use this model." },
      });
      expect(describeFailure(error, ["sk-live-0123456789"]).message).toBe(
        "The key [redacted] may not use this model.",
      );
    });

    describe("end to end, through the demo relay and its faults", () => {
      test("a drop after content: the SSE error event says what happened and what to do", async () => {
        const response = await askWithFault(demoRelay(), "drop-after=3");
        expect(lastErrorMessage(await response.text())).toBe(
          "The connection to the upstream was lost after part of the answer was sent; send the " +
            "request again.",
        );
      });

      test("an error event after content keeps the provider's words, once", async () => {
        const response = await askWithFault(demoRelay(), "error-event-after=2");
        expect(lastErrorMessage(await response.text())).toBe(
          'The upstream reported an error ("Network connection lost") after part of the answer ' +
            "was sent; send the request again.",
        );
      });

      test("retries that run out before content: a 502 whose message names the status", async () => {
        const response = await askWithFault(demoRelay(), "status=503");
        expect(response.status).toBe(502);
        const json = (await response.json()) as { error: { message: string } };
        expect(json.error.message).toBe(
          'The upstream answered HTTP 503 ("The demo model is overloaded (demo fault ' +
            'status=503)"); try again later.',
        );
      });

      test("stopstream through the relay: one prefix, the relay's sentence kept in the cause", async () => {
        const app = demoRelay();
        const stream = streamChat({
          baseURL: "http://relay.test/v1",
          body: CHAT,
          headers: { "x-demo-fault": "drop-after=3" },
          fetch: (input, init) => Promise.resolve(app.request(input as string, init)),
        });
        const error = await stream.result.catch((e: unknown) => e);
        expect(isPartialStreamError(error)).toBe(true);
        if (!isPartialStreamError(error)) return;
        // It used to read "stopstream: the stream failed after content was delivered:
        // stopstream: upstream error in stream: The upstream stream failed after part of the
        // answer was sent: connection lost mid-stream: …".
        expect(error.message).toBe(
          "stopstream: the provider reported an error after part of the answer had arrived; " +
            "that part is kept, and sending the request again gets a complete answer",
        );
        expect(error.partial.finishReason).toBe("error");
        expect(isUpstreamStreamError(error.cause) && error.cause.providerMessage).toBe(
          "The connection to the upstream was lost after part of the answer was sent; send the " +
            "request again.",
        );
      });
    });
  });
}
