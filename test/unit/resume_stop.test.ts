import { afterEach, describe, expect, test, vi } from "vitest";
import { InterruptedError } from "../../src/core/error_classes.ts";
import { streamChat } from "../../src/client/stream_chat.ts";
import type { StreamChatOptions } from "../../src/core/chat_options.ts";
import {
  type Connection,
  RELAY_STREAM_ID,
  type ResumableServer,
  sseBlocks,
  startResumableServer,
} from "../support/resumable_server.ts";
import { useFakeClock } from "../support/clock.ts";
import { collect, settlesNow } from "../support/sse.ts";
import { fixture } from "./protocol_replay.ts";

// Stop still means stop on a stream the server keeps running: an abort or a `break` rejects at
// once, no reconnect starts, and the stream is cancelled on the server, once. The same cases
// for the relay's resumable streams and OpenAI Responses background mode.

const KEY = "sk-stop-test";

const CASES = [
  {
    name: "a relay stream",
    kind: "relay",
    events: sseBlocks(fixture("openai_text.sse")),
    /** An event index after some text arrived. */
    after: 3,
    cancelPath: `/v1/streams/${RELAY_STREAM_ID}/cancel`,
    options: {
      headers: { "x-stopstream-resumable": "true" },
      body: { model: "gpt-test", messages: [{ role: "user", content: "Hi" }] },
    },
  },
  {
    name: "a Responses background response",
    kind: "background",
    events: sseBlocks(fixture("responses_text.sse")),
    after: 6,
    cancelPath: "/v1/responses/resp_67c9fdcecf488190bdd9a0409de3a1ec07b8b0ad4e5eb654/cancel",
    options: {
      protocol: "openai-responses",
      body: { model: "gpt-4.1", input: "Hi", background: true },
    },
  },
] as const;

// Time is the fake clock's: no further request is proved by jumping it past every wait, and a
// cancel's 5 s timeout passes without 5 s of waiting.
useFakeClock();

let servers: ResumableServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

describe.each(CASES)("stopping $name", (c) => {
  async function serve(script: Connection[]): Promise<ResumableServer> {
    const server = await startResumableServer(c.kind, c.events, script);
    servers.push(server);
    return server;
  }
  const options = (server: ResumableServer, extra: Partial<StreamChatOptions> = {}) =>
    ({
      ...c.options,
      baseURL: server.baseURL,
      apiKey: KEY,
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
      fetch: server.fetch,
      ...extra,
    }) as StreamChatOptions;

  /** The cancel request arrived, with the original request's key and no body, and only once. */
  async function expectOneCancel(server: ResumableServer, connections: number): Promise<void> {
    const cancel = await server.cancelled;
    expect(cancel.path).toBe(c.cancelPath);
    expect(cancel.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(cancel.headers.get("content-type")).toBeNull();
    const sent: Record<string, string> = "headers" in c.options ? c.options.headers : {};
    for (const [name, value] of Object.entries(sent)) {
      expect(cancel.headers.get(name)).toBe(value);
    }
    await server.expectNoMoreRequests();
    expect(server.connections).toHaveLength(connections);
    expect(server.cancels).toHaveLength(1);
  }

  test("abort in a reconnect's backoff: InterruptedError at once, no further request, one cancel", async () => {
    const server = await serve([{ endAt: c.after }]);
    const controller = new AbortController();
    const stream = streamChat(
      options(server, { signal: controller.signal, retry: { initialDelayMs: 10_000 } }),
    );
    const result = stream.result;
    const { error } = await collect(stream, (event) => {
      if (event.type === "resume") controller.abort();
    });
    expect(error).toBeInstanceOf(InterruptedError);
    expect(await settlesNow(result)).toEqual({ rejected: error });
    await expectOneCancel(server, 1);
  });

  test("abort while the resume request waits for headers: closed at once, one cancel", async () => {
    const server = await serve([{ endAt: c.after }, { hold: true }]);
    const controller = new AbortController();
    const result = streamChat(options(server, { signal: controller.signal })).result;
    const resumed = await server.connection(2);
    controller.abort();
    expect(await settlesNow(result)).toEqual({ rejected: expect.any(InterruptedError) });
    expect(await resumed.closed).toBe("aborted");
    await expectOneCancel(server, 2);
  });

  test("break mid-answer closes the connection and sends one cancel", async () => {
    const server = await serve([{ stallAt: c.after }]);
    const stream = streamChat(options(server));
    for await (const event of stream) if (event.type === "text") break;
    await expect(stream.result).rejects.toBeInstanceOf(InterruptedError);
    expect(await server.connections[0]!.closed).toBe("aborted");
    await expectOneCancel(server, 1);
  });

  test("a cancel the server never answers is given up after 5 s, and the call does not wait for it", async () => {
    const server = await serve([{ stallAt: c.after }]);
    let cancelSignal: AbortSignal | undefined;
    let sentAt = 0;
    let onCancel!: () => void;
    const cancelSent = new Promise<void>((resolve) => (onCancel = resolve));
    const fetchFn = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      if (!String(input).endsWith("/cancel")) return server.fetch(input, init);
      cancelSignal = init?.signal ?? undefined;
      sentAt = Date.now();
      onCancel();
      return new Promise(() => {}); // no answer, ever
    };
    const stream = streamChat(options(server, { fetch: fetchFn as typeof fetch }));
    for await (const event of stream) if (event.type === "text") break;
    expect(await settlesNow(stream.result)).toEqual({ rejected: expect.any(InterruptedError) });
    await cancelSent;
    const signal = cancelSignal!;
    expect(signal.aborted).toBe(false);
    let abortedAt = 0;
    signal.addEventListener("abort", () => (abortedAt = Date.now()), { once: true });
    // Nine seconds of the fake clock, in a moment: the timeout fires on the way.
    await vi.advanceTimersByTimeAsync(9_000);
    expect(signal.aborted).toBe(true);
    const waited = abortedAt - sentAt;
    expect((signal.reason as DOMException).name).toBe("TimeoutError");
    expect(waited).toBeGreaterThan(4_500);
    expect(waited).toBeLessThan(9_000);
  });
});
