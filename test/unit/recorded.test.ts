// Real recorded provider streams are the ground truth (test/recorded/, sources and licences in
// test/recorded/SOURCES.md). Each recording is served over a real loopback socket, once whole and
// twice cut at random byte boundaries — always including a cut inside a multi-byte UTF-8
// character and one between CR and LF when the recording has them — and must give the result
// written in test/recorded/expected*.ts by reading the recording. The cuts are seeded: the seed
// is logged, and FC_SEED=<seed> replays the same cuts (test/support/seed.ts).
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { streamChat } from "../../src/index.ts";
import type { ProtocolName, StreamEvent } from "../../src/index.ts";
import { EXPECTED, type Expected } from "../recorded/expected.ts";
import { collect, type Collected, ofType } from "../support/sse.ts";
import { type ReplayServer, startReplayServer } from "../support/replay_server.ts";
import { seedFor } from "../support/seed.ts";

const SEED = seedFor("recorded");

const ROOT = new URL("../recorded/", import.meta.url);
const encoder = new TextEncoder();
const files = ["anthropic", "responses", "chat"].flatMap((dir) =>
  readdirSync(new URL(`${dir}/`, ROOT)).filter((f) => f.endsWith(".sse")).map((f) => `${dir}/${f}`)
);
const bytesOf = new Map(files.map((name) => [name, encoder.encode(read(name))]));

function read(name: string): string {
  return readFileSync(new URL(name, ROOT), "utf8");
}

/** mulberry32: a small seeded PRNG, so a failing cut can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Random cut offsets, plus one inside a UTF-8 sequence and one inside a CRLF if there are any. */
function cuts(bytes: Uint8Array, rng: () => number): number[] {
  const pick = (list: number[]): number[] =>
    list.length === 0 ? [] : [list[Math.floor(rng() * list.length)]!];
  const inChar: number[] = [];
  const inCRLF: number[] = [];
  for (let i = 1; i < bytes.length; i++) {
    if ((bytes[i]! & 0xc0) === 0x80) inChar.push(i);
    if (bytes[i - 1] === 13 && bytes[i] === 10) inCRLF.push(i);
  }
  const count = 1 + Math.floor(rng() * 40);
  const offsets = Array.from({ length: count }, () => 1 + Math.floor(rng() * (bytes.length - 1)));
  return [...new Set([...offsets, ...pick(inChar), ...pick(inCRLF)])].sort((a, b) => a - b);
}

function pieces(bytes: Uint8Array, at: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    if (cut > from) out.push(bytes.subarray(from, cut));
    from = cut;
  }
  return out;
}

let server: ReplayServer;
beforeAll(async () => {
  // The path says which recording and which cuts: /<variant>/<recording>/<protocol path>.
  server = await startReplayServer((_n, request) => {
    const [, variant, dir, file] = request.path.split("/");
    const name = `${dir}/${file}`;
    const bytes = bytesOf.get(name)!;
    if (variant === "whole") return [bytes];
    return pieces(bytes, cuts(bytes, random(SEED ^ hash(`${name}#${variant}`))));
  });
});
afterAll(() => server.close());

const BODY: Record<ProtocolName, Record<string, unknown>> = {
  "openai-chat": { model: "recorded", messages: [{ role: "user", content: "Hi" }] },
  "anthropic-messages": {
    model: "recorded",
    max_tokens: 1024,
    messages: [{ role: "user", content: "Hi" }],
  },
  "openai-responses": { model: "recorded", input: "Hi" },
};

function replay(name: string, variant: string, protocol: ProtocolName): Promise<Collected> {
  return collect(streamChat({
    baseURL: `${server.url}/${variant}/${name}`,
    protocol,
    body: BODY[protocol],
    maxRetries: 0,
  }));
}

/** What every result owes its events, whatever the recording. */
function consistentWithEvents(run: Collected): void {
  const result = run.result!;
  const joined = (type: "text" | "reasoning"): string =>
    ofType(run.events, type).map((e) => e.text).join("");
  expect(joined("text")).toBe(result.content);
  expect(joined("reasoning")).toBe(result.reasoning);
  expect(
    ofType(run.events, "tool-call").map(({ index, id, name, providerExecuted }) => ({
      index,
      id,
      name,
      providerExecuted,
    })),
  ).toEqual(
    result.toolCalls.map(({ index, id, name, providerExecuted }) => ({
      index,
      id,
      name,
      providerExecuted,
    })),
  );
  // `tool_calls` says the caller has a call to run; the provider's own calls never make it so.
  const mine = result.toolCalls.filter((call) => call.providerExecuted !== true);
  if (result.finishReason === "tool_calls") expect(mine.length).toBeGreaterThan(0);
  if (mine.length === 0) expect(result.finishReason).not.toBe("tool_calls");
  for (const call of result.toolCalls) {
    const deltas = ofType(run.events, "tool-call-delta").filter((e) => e.index === call.index);
    expect(deltas.map((e) => e.argumentsDelta).join("")).toBe(call.arguments);
  }
  expect(result.output).toBeDefined();
  if (result.citations !== undefined) expect(result.citations.length).toBeGreaterThan(0);
}

function check(run: Collected, expected: Expected): void {
  if (expected.error !== undefined) {
    expect(run.result).toBeUndefined();
    const error = run.error as Error & { retryable?: boolean; partial?: unknown };
    expect(error.name).toBe(expected.error.name);
    if (expected.error.cause !== undefined) {
      expect((error.cause as Error | undefined)?.name).toBe(expected.error.cause);
    }
    if (expected.error.retryable !== undefined) {
      expect(error.retryable).toBe(expected.error.retryable);
    }
    if (expected.partial !== undefined) expect(error.partial).toMatchObject(expected.partial);
    return;
  }
  expect(run.error).toBeUndefined();
  expect(run.result).toMatchObject(expected.result ?? {});
  for (const key of expected.absent ?? []) expect(run.result).not.toHaveProperty(key);
  if (expected.mine !== undefined) {
    const mine = run.result!.toolCalls.filter((call) => call.providerExecuted !== true);
    expect(mine.map((call) => call.id)).toEqual(expected.mine);
  }
  consistentWithEvents(run);
}

/** A run with what depends on the URL (which target answered) taken out. */
function comparable(run: Collected): { events: StreamEvent[]; result: unknown; error: unknown } {
  const events = run.events.filter((e) => e.type !== "open");
  if (run.result === undefined) return { events, result: undefined, error: String(run.error) };
  const { target: _target, trace: _trace, ...result } = run.result;
  const finish = events.map((e) => e.type === "finish" ? { type: "finish" } : e) as StreamEvent[];
  return { events: finish, result, error: undefined };
}

describe("real recorded streams give the result read off the recording, in any chunking", () => {
  test("every recording has an expected result, and every expected result a recording", () => {
    expect(files.length).toBeGreaterThan(0);
    expect([...files].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  test("every recording names its source and licence, and at least 85 are real", () => {
    const rows = read("SOURCES.md").split("\n").filter((line) => line.startsWith("| `"))
      .map((line) => line.split("|").slice(1, -1).map((cell) => cell.trim()));
    expect(rows.map((cells) => cells[0]!.slice(1, -1)).sort()).toEqual([...files].sort());
    for (const cells of rows) {
      // repository, path and commit; a licence that allows copying the data
      expect(cells[3]).toMatch(/^`[\w.-]+\/[\w.-]+` `[^`]+` @ `[0-9a-f]{12}`$/);
      expect(cells[4]).toMatch(/^(MIT|Apache-2\.0)$/);
    }
    expect(rows.filter((cells) => cells[6] === "yes").length).toBeGreaterThanOrEqual(85);
  });

  test.each(files)("%s", async (name) => {
    const expected = EXPECTED[name]!;
    const whole = await replay(name, "whole", expected.protocol);
    check(whole, expected);
    for (const variant of ["cut1", "cut2"]) {
      const cut = await replay(name, variant, expected.protocol);
      check(cut, expected);
      expect(comparable(cut)).toEqual(comparable(whole));
    }
  });
});
