/**
 * The call log's parts that need no runtime: the key id, the `LOG_CALLS` binding, and how a
 * settled call is classified. The line itself is asserted in workerd
 * (test/workers/call_log.test.ts).
 */

import { afterEach, describe, expect, test, vi } from "vitest";
import { InterruptedError, PartialStreamError } from "../../src/core/error_classes.ts";
import type { ChatResult } from "../../src/core/chat_result.ts";
import { keyIdOf, logCall, outcomeOf } from "../../src/relay/call_log.ts";
import { relayOptionsFromEnv } from "../../src/relay/env.ts";

afterEach(() => vi.restoreAllMocks());

const KEY = "sk-relay-Pq4Ws8Ek2Rv6Yn1";

describe("keyIdOf", () => {
  test("12 hex digits, the same for the same key, different for another, none of the key", async () => {
    const id = await keyIdOf(`Bearer ${KEY}`);
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(await keyIdOf(`bearer  ${KEY} `)).toBe(id);
    expect(await keyIdOf(`Bearer ${KEY}x`)).not.toBe(id);
    // Not the plain SHA-256 of the key either: salted.
    const plain = new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(KEY)),
    );
    const plainHex = [...plain].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(plainHex.startsWith(id!)).toBe(false);
    for (let i = 0; i + 4 <= KEY.length; i++) expect(id).not.toContain(KEY.slice(i, i + 4));
  });

  test("no key (a relay without keys): null", async () => {
    expect(await keyIdOf(undefined)).toBeNull();
    expect(await keyIdOf("Basic abc")).toBeNull();
  });
});

describe("LOG_CALLS", () => {
  test("false and true are read as logCalls; unset leaves the default; anything else is named", () => {
    expect(relayOptionsFromEnv({ LOG_CALLS: "false" }).logCalls).toBe(false);
    expect(relayOptionsFromEnv({ LOG_CALLS: " TRUE " }).logCalls).toBe(true);
    expect(relayOptionsFromEnv({}).logCalls).toBeUndefined();
    expect(() => relayOptionsFromEnv({ LOG_CALLS: "sk-oops" })).toThrow(
      /^LOG_CALLS must be true or false$/,
    );
  });
});

describe("outcomeOf", () => {
  const result = { finishReason: "stop" } as ChatResult;
  test.each<[string, ChatResult | undefined, unknown, string]>([
    ["a result", result, undefined, "complete"],
    ["a partial result (onPartial return)", { ...result, partial: true }, undefined, "partial"],
    ["a PartialStreamError", undefined, new PartialStreamError(result, null), "partial"],
    [
      "an InterruptedError (the caller's disconnect)",
      undefined,
      new InterruptedError(),
      "caller_gone",
    ],
    ["any other error", undefined, new TypeError("x"), "error"],
  ])("%s → %s", (_case, settled, error, outcome) => {
    expect(outcomeOf(settled, error)).toBe(outcome);
  });
});

test("logCall writes one line of JSON on console.log, the partial answer's finish and usage", () => {
  const lines: string[] = [];
  vi.spyOn(console, "log").mockImplementation((text: string) => lines.push(text));
  const partial = {
    finishReason: "error",
    usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7, raw: { secret: "x" } },
    trace: [],
  } as unknown as ChatResult;
  const error = Object.assign(new PartialStreamError(partial, null), {
    trace: [{
      target: { index: 1, baseURL: "https://user:pw@up.test/v1?key=k", protocol: "openai-chat" },
      start: 1000,
      end: 1500,
      status: 200,
      error: "ConnectionError",
      waitMs: 20,
    }],
  });
  const start = { callId: "c", route: "/r", keyId: null, stream: true, start: Date.now() - 10 };
  logCall(start, { error, firstToken: start.start + 5, upstreamOf: (t) => t + 1 });
  expect(lines).toHaveLength(1);
  expect(lines[0]).not.toContain("\n");
  const line = JSON.parse(lines[0]!);
  expect(line).toEqual({
    message: "stopstream.call",
    callId: "c",
    route: "/r",
    keyId: null,
    stream: true,
    attempts: [{
      upstream: 2,
      host: "up.test",
      model: null,
      status: 200,
      error: "ConnectionError",
      waitMs: 20,
      durationMs: 500,
    }],
    ttftMs: 5,
    totalMs: expect.any(Number),
    usage: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
    finish: "error",
    outcome: "partial",
  });
  expect(lines[0]).not.toMatch(/pw|key=k|secret/);
});
