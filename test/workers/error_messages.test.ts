import { describe, expect, it } from "vitest";
import { isPartialStreamError, isUpstreamStreamError, streamChat } from "../../src/index.ts";
import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import { chatBody, parseSSE, postChat } from "./helpers.ts";

// What a person reads when a call through the relay fails: one sentence per hop, never the
// chain of every hop's messages ("stopstream: … stopstream: … : … : …").

const relay = () =>
  createDemoRelay({ retry: { initialDelayMs: 1, maxDelayMs: 5 }, maxRetries: 1 }, {
    wordDelayMs: 1,
  });

describe("relay error sentences", () => {
  it("a drop after content: the SSE error event says what happened and what to do", async () => {
    const response = await postChat(relay(), chatBody({ stream: true }), {
      headers: { "x-demo-fault": "drop-after=3" },
    });
    const last = parseSSE(await response.text()).data.at(-1) as { error: { message: string } };
    expect(last.error.message).toBe(
      "The connection to the upstream was lost after part of the answer was sent; send the " +
        "request again.",
    );
  });

  it("an error event after content keeps the provider's words, once", async () => {
    const response = await postChat(relay(), chatBody({ stream: true }), {
      headers: { "x-demo-fault": "error-event-after=2" },
    });
    const last = parseSSE(await response.text()).data.at(-1) as { error: { message: string } };
    expect(last.error.message).toBe(
      'The upstream reported an error ("Network connection lost") after part of the answer was ' +
        "sent; send the request again.",
    );
  });

  it("retries that run out before content: a 502 whose message names the status", async () => {
    const response = await postChat(relay(), chatBody({ stream: true }), {
      headers: { "x-demo-fault": "status=503" },
    });
    expect(response.status).toBe(502);
    const json = (await response.json()) as { error: { message: string } };
    expect(json.error.message).toBe(
      'The upstream answered HTTP 503 ("The demo model is overloaded (demo fault status=503)"); ' +
        "try again later.",
    );
  });

  it("stopstream through the relay: one prefix, the relay's sentence kept in the cause", async () => {
    const app = relay();
    const stream = streamChat({
      baseURL: "http://relay.test/v1",
      body: chatBody(),
      headers: { "x-demo-fault": "drop-after=3" },
      fetch: (input, init) => Promise.resolve(app.request(input as string, init)),
    });
    const error = await stream.result.catch((e: unknown) => e);
    expect(isPartialStreamError(error)).toBe(true);
    if (!isPartialStreamError(error)) return;
    // It used to read "stopstream: the stream failed after content was delivered: stopstream:
    // upstream error in stream: The upstream stream failed after part of the answer was sent:
    // connection lost mid-stream: …".
    expect(error.message).toBe(
      "stopstream: the provider reported an error after part of the answer had arrived; that " +
        "part is kept, and sending the request again gets a complete answer",
    );
    expect(error.partial.finishReason).toBe("error");
    expect(isUpstreamStreamError(error.cause) && error.cause.providerMessage).toBe(
      "The connection to the upstream was lost after part of the answer was sent; send the " +
        "request again.",
    );
  });
});
