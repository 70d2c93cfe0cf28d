/**
 * `result.trace`, the relay's call log and its mid-answer continuation fed a recorded provider
 * stream (test/recorded/chat/openai_text.sse, see SOURCES.md): bytes OpenAI sent, whole or cut
 * at a byte inside an event, rather than chunks written for the test. The caller's relay key is
 * one built to break a log line, and must not appear in it.
 */

import { readFileSync } from "node:fs";
import { afterEach, describe, expect, test, vi } from "vitest";
import { streamChat } from "../../src/index.ts";
import { createRelay } from "../../src/relay/app.ts";
import type { RelayOptions } from "../../src/relay/options.ts";
import { EXPECTED } from "../recorded/expected.ts";
import { callLines } from "../support/call_lines.ts";

const NAME = "chat/openai_text.sse";
const RECORDING = new Uint8Array(readFileSync(new URL(`../recorded/${NAME}`, import.meta.url)));
const ANSWER = (EXPECTED[NAME]!.result as { content: unknown }).content;
const TEXT = new TextDecoder().decode(RECORDING);
/** Byte offset where each event of the recording begins. */
const EVENT_STARTS = [...TEXT.matchAll(/^data: /gm)].map((m) => m.index!);
/** The answer's text as the recording spells it, event by event. */
const DELTAS = TEXT.split("\n\n").filter((e) => e.startsWith("data: {")).map((e) =>
  (JSON.parse(e.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]
    ?.delta?.content ?? ""
);
const FULL = DELTAS.join("");
/** A caller key with what would break a hand-built log line: quotes, braces, a newline escape. */
const KEY = 'sk-relay-"},"keyId":"forged\\n{"x":"Qm7Vt2Lp9Rw';
const UPSTREAM_KEY = "sk-up-Hj4Nc8Ds1Xe5";

afterEach(() => vi.restoreAllMocks());

function sse(body: Uint8Array<ArrayBuffer>): Response {
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

function relay(
  fetch: (request: Request) => Response | Promise<Response>,
  options: Partial<RelayOptions> = {},
) {
  return createRelay({
    keys: [KEY],
    upstreams: [{
      baseURL: "https://upstream.test/v1",
      apiKey: UPSTREAM_KEY,
      protocol: "openai-chat",
      model: "gpt-4o",
    }],
    fetch: async (input, init) => await fetch(new Request(input, init)),
    retry: { initialDelayMs: 1, maxDelayMs: 1 },
    ...options,
  });
}

async function ask(
  app: ReturnType<typeof createRelay>,
  headers: Record<string, string> = {},
): Promise<{ status: number; data: string[] }> {
  const response = await app.request("/v1/chat/completions", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${KEY}`,
      ...headers,
    },
    body: JSON.stringify({
      model: "any",
      stream: true,
      messages: [{ role: "user", content: "Hi" }],
    }),
  });
  const raw = await response.text();
  const data = raw.split("\n").filter((line) => line.startsWith("data: ")).map((line) =>
    line.slice(6)
  );
  return { status: response.status, data };
}

function contentOf(data: string[]): string {
  return data.filter((d) => d !== "[DONE]").map((d) =>
    (JSON.parse(d) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta
      ?.content ?? ""
  ).join("");
}

/** No run of 6 letters or digits of `secret` (nor a piece of one) anywhere in `text`. */
function expectNoPieceOf(text: string, secret: string): void {
  for (const run of secret.split(/[^A-Za-z0-9]+/).filter((r) => r.length >= 6)) {
    for (let i = 0; i + 6 <= run.length; i++) {
      expect(text, "a piece of a key").not.toContain(run.slice(i, i + 6));
    }
  }
}

test("the recording is the one expected.ts describes", () => {
  expect(FULL).toEqual(ANSWER);
  expect(EVENT_STARTS.length).toBe(34);
});

describe("result.trace of a recorded stream", () => {
  test("whole: one entry, status 200, no error, no wait, never the key", async () => {
    const result = await streamChat({
      baseURL: "https://upstream.test/v1",
      apiKey: UPSTREAM_KEY,
      body: { model: "gpt-4o", messages: [] },
      maxRetries: 0,
      fetch: () => Promise.resolve(sse(RECORDING)),
    }).result;
    expect(result.content).toBe(FULL);
    expect(result.trace).toEqual([{
      target: {
        index: 0,
        baseURL: "https://upstream.test/v1",
        protocol: "openai-chat",
        model: "gpt-4o",
      },
      start: expect.any(Number),
      end: expect.any(Number),
      status: 200,
      waitMs: 0,
    }]);
    const [entry] = result.trace ?? [];
    expect(entry!.end).toBeGreaterThanOrEqual(entry!.start);
    expect(JSON.stringify(result.trace)).not.toContain(UPSTREAM_KEY);
  });

  test.each([3, 17, 30])(
    "cut inside event %i: the PartialStreamError's trace has the request, status 200 and its error",
    async (event) => {
      const cut = EVENT_STARTS[event]! + 40;
      const error = await streamChat({
        baseURL: "https://upstream.test/v1",
        body: { model: "gpt-4o", messages: [] },
        maxRetries: 0,
        fetch: () => Promise.resolve(sse(RECORDING.subarray(0, cut))),
      }).result.then(() => undefined, (e: unknown) => e as Error & { trace?: unknown[] });
      expect(error?.name).toBe("PartialStreamError");
      expect(error?.trace).toEqual([expect.objectContaining({
        status: 200,
        error: "ConnectionError",
        waitMs: 0,
      })]);
    },
  );
});

describe("the call log of a recorded stream through the relay", () => {
  test("whole: one line with the recording's usage and finish, and no key or piece of one", async () => {
    const log = callLines();
    const { status, data } = await ask(relay(() => sse(RECORDING)));
    expect(status).toBe(200);
    expect(contentOf(data)).toBe(FULL);
    const line = await log.next();
    expect(line).toEqual({
      message: "stopstream.call",
      callId: expect.any(String),
      route: "/v1/chat/completions",
      keyId: expect.stringMatching(/^[0-9a-f]{12}$/),
      stream: true,
      attempts: [{
        upstream: 0,
        host: "upstream.test",
        model: "gpt-4o",
        status: 200,
        error: null,
        waitMs: 0,
        durationMs: expect.any(Number),
      }],
      ttftMs: expect.any(Number),
      totalMs: expect.any(Number),
      usage: { inputTokens: 14, outputTokens: 30, totalTokens: 44 },
      finish: "stop",
      outcome: "complete",
    });
    const logged = log.all.join("\n");
    expect(logged).not.toContain("forged");
    expectNoPieceOf(logged, KEY);
    expectNoPieceOf(logged, UPSTREAM_KEY);
  });

  test("a wrong key (the hostile one, one character off) is refused and never logged", async () => {
    const log = callLines();
    const app = relay(() => sse(RECORDING));
    const wrong = KEY.slice(0, -1) + "x";
    const response = await app.request("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${wrong}` },
      body: JSON.stringify({ model: "any", stream: true, messages: [] }),
    });
    expect(response.status).toBe(401);
    await response.text();
    expectNoPieceOf(log.all.join("\n"), wrong);
  });

  test("cut inside an event: outcome partial, the request's status and error kind", async () => {
    const log = callLines();
    const cut = EVENT_STARTS[12]! + 55;
    const { data } = await ask(relay(() => sse(RECORDING.subarray(0, cut)), { maxRetries: 0 }));
    expect(data).not.toContain("[DONE]");
    const line = await log.next();
    expect(line.outcome).toBe("partial");
    expect(line.attempts).toEqual([expect.objectContaining({
      upstream: 0,
      host: "upstream.test",
      status: 200,
      error: "ConnectionError",
    })]);
    expect(line.ttftMs).not.toBeNull();
    expect(line.finish).toBe("error");
  });
});

describe("x-stopstream-on-partial: continue over a recorded stream cut mid-way", () => {
  test.each([2, 9, 21, 31])(
    "cut inside event %i: the whole recorded answer once, one id, [DONE], two requests logged",
    async (event) => {
      const log = callLines();
      const prefixes: string[] = [];
      // Cut inside `event` first; asked for the rest (an assistant prefix), the recording's own
      // events from the one that was cut to its end.
      const app = relay(async (request) => {
        const body = await request.json() as { messages: Array<{ role: string; content: string }> };
        const last = body.messages.at(-1)!;
        if (last.role !== "assistant") {
          return sse(RECORDING.subarray(0, EVENT_STARTS[event]! + 50));
        }
        prefixes.push(last.content);
        return sse(RECORDING.subarray(EVENT_STARTS[event]!));
      });
      const { status, data } = await ask(app, { "x-stopstream-on-partial": "continue" });
      expect(status).toBe(200);
      expect(prefixes).toEqual([DELTAS.slice(0, event).join("")]);
      expect(contentOf(data)).toBe(FULL);
      expect(data.filter((d) => d === "[DONE]")).toHaveLength(1);
      const ids = new Set(
        data.filter((d) => d !== "[DONE]").map((d) => (JSON.parse(d) as { id: string }).id),
      );
      expect(ids.size).toBe(1);
      const line = await log.next();
      expect(line.outcome).toBe("complete");
      expect(line.attempts.map((a) => [a.status, a.error])).toEqual([
        [200, "ConnectionError"],
        [200, null],
      ]);
      expect(line.usage).toEqual({ inputTokens: 14, outputTokens: 30, totalTokens: 44 });
    },
  );

  test("without the header the same cut ends the stream with an error event, no [DONE]", async () => {
    callLines();
    let requests = 0;
    const app = relay(() => {
      requests++;
      return sse(RECORDING.subarray(0, EVENT_STARTS[9]! + 50));
    }, { maxRetries: 0 });
    const { data } = await ask(app);
    expect(requests).toBe(1);
    expect(data).not.toContain("[DONE]");
    expect(contentOf(data.slice(0, -1))).toBe(DELTAS.slice(0, 9).join(""));
    expect(data.at(-1)).toContain('"error"');
  });
});
