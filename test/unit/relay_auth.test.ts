/**
 * The relay's key checks (src/relay/auth.ts) are constant-time by construction, and these tests
 * check the construction, not the clock (a timed test would be flaky and is not allowed): the
 * inputs are instrumented, and a compare must read every byte of both, whatever byte differs
 * first. An early exit (`===`, a loop that returns at the first difference, `Array.some` over
 * the accepted keys) reads less and fails here. Also: a key of another length is refused after
 * the same hashing as any other, and no part of a key reaches the 401 or the log.
 */

import { afterEach, describe, expect, test, vi } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import { createKeyCheck, matchesAny, sameBytes, sameHash, sha256 } from "../../src/relay/auth.ts";

/** `bytes` behind a Proxy that records which indexes were read. */
function watchedBytes(bytes: Uint8Array): { bytes: Uint8Array; read: Set<number> } {
  const read = new Set<number>();
  const proxy = new Proxy(bytes, {
    get(target, key) {
      if (typeof key === "string" && /^\d+$/.test(key)) read.add(Number(key));
      const value: unknown = Reflect.get(target, key);
      // Methods run on the real array (a typed array's methods refuse a Proxy as `this`).
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { bytes: proxy, read };
}

/**
 * `text` as the compare uses a string (`length`, `charCodeAt`), recording which positions were
 * read. A stand-in object, not a string: `===` on it is identity, so an `===` compare fails too.
 */
function watchedText(text: string): { text: string; read: Set<number> } {
  const read = new Set<number>();
  const standIn = {
    length: text.length,
    charCodeAt(index: number): number {
      read.add(index);
      return text.charCodeAt(index);
    },
  };
  return { text: standIn as unknown as string, read };
}

const all = (length: number): number[] => Array.from({ length }, (_, i) => i);
const sorted = (read: Set<number>): number[] => [...read].sort((a, b) => a - b);

/** A 32-byte digest with byte `at` changed (none when `at` is undefined). */
function digestDifferingAt(base: Uint8Array, at: number | undefined): Uint8Array {
  const copy = base.slice();
  if (at !== undefined) copy[at] = (copy[at] as number) ^ 0xff;
  return copy;
}

describe("sameBytes reads every byte of both inputs, wherever they first differ", () => {
  const places: Array<[string, number | undefined]> = [
    ["equal", undefined],
    ["first byte differs", 0],
    ["a middle byte differs", 15],
    ["last byte differs", 31],
  ];

  test.each(places)("%s", async (_, at) => {
    const base = await sha256("relay-key-1");
    const a = watchedBytes(base.slice());
    const b = watchedBytes(digestDifferingAt(base, at));
    expect(sameBytes(a.bytes, b.bytes)).toBe(at === undefined);
    expect(sorted(a.read)).toEqual(all(32));
    expect(sorted(b.read)).toEqual(all(32));
  });

  test("inputs of different lengths are unequal, a prefix included", async () => {
    const digest = await sha256("relay-key-1");
    expect(sameBytes(digest, digest.slice(0, 16))).toBe(false);
    expect(sameBytes(digest.slice(0, 16), digest)).toBe(false);
    expect(sameBytes(digest, new Uint8Array([...digest, 0]))).toBe(false);
    expect(sameBytes(digest, new Uint8Array(0))).toBe(false);
    expect(sameBytes(new Uint8Array(0), new Uint8Array(0))).toBe(true);
  });
});

describe("matchesAny compares every accepted digest in full, whichever matches", () => {
  test.each([
    ["the first matches", "relay-key-1", true],
    ["the last matches", "relay-key-3", true],
    ["none matches", "relay-key-4", false],
    ["none matches, another length", "relay-key-", false],
  ])("%s", async (_, key, expected) => {
    const keys = ["relay-key-1", "relay-key-2", "relay-key-3"];
    const accepted = await Promise.all(keys.map(async (k) => watchedBytes(await sha256(k))));
    const given = watchedBytes(await sha256(key));
    expect(matchesAny(given.bytes, accepted.map((a) => a.bytes))).toBe(expected);
    for (const digest of accepted) expect(sorted(digest.read)).toEqual(all(32));
    expect(sorted(given.read)).toEqual(all(32));
  });
});

describe("sameHash reads every character of both owner hashes, wherever they first differ", () => {
  const owner = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

  test.each([
    ["equal", owner],
    ["first character differs", `0${owner.slice(1)}`],
    ["last character differs", `${owner.slice(0, -1)}9`],
  ])("%s", (_, other) => {
    const a = watchedText(owner);
    const b = watchedText(other);
    expect(sameHash(a.text, b.text)).toBe(other === owner);
    expect(sorted(a.read)).toEqual(all(owner.length));
    expect(sorted(b.read)).toEqual(all(owner.length));
  });

  test("hashes of different lengths are unequal, a prefix and the empty owner included", () => {
    expect(sameHash(owner, owner.slice(0, 32))).toBe(false);
    expect(sameHash(owner.slice(0, 32), owner)).toBe(false);
    expect(sameHash(owner, "")).toBe(false);
    expect(sameHash("", owner)).toBe(false);
  });
});

describe("createKeyCheck", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  test("a key of another length is refused, after being hashed like any other", async () => {
    const isAuthorized = createKeyCheck(["relay-key-1"]);
    const digest = vi.spyOn(crypto.subtle, "digest");
    const hashed = (): string[] =>
      digest.mock.calls.map(([, data]) => new TextDecoder().decode(data as Uint8Array));
    for (const key of ["relay-key-", "relay-key-10", "r", "relay-key-1-and-then-some"]) {
      digest.mockClear();
      expect(await isAuthorized(`Bearer ${key}`)).toBe(false);
      // The given key went through SHA-256 (no shortcut on its length before the compare).
      expect(hashed()).toContain(key);
    }
    expect(await isAuthorized("Bearer relay-key-1")).toBe(true);
  });

  test("with no keys configured every caller is let in; with keys, no header is refused", async () => {
    expect(await createKeyCheck([])(undefined)).toBe(true);
    expect(await createKeyCheck(["relay-key-1"])(undefined)).toBe(false);
    expect(await createKeyCheck(["relay-key-1"])("relay-key-1")).toBe(false);
  });
});

describe("a refused key leaves no trace of itself or the relay's keys", () => {
  const KEY = "sk-relay-Q7f3z9Lw2Xc4Vb8N";
  const tried = [
    "sk-relay-Q7f3z9Lw2Xc4Vb8M", // same length, differs in the last character
    "sk-relay-Q7f3z9", // a prefix
    `${KEY}x`, // the key and one more
  ];
  /** Every 6-character piece of `text`: none may appear anywhere a caller or the log sees. */
  const pieces = (text: string): string[] =>
    Array.from({ length: text.length - 5 }, (_, i) => text.slice(i, i + 6));

  afterEach(() => {
    vi.restoreAllMocks();
  });

  test("in the 401's body and headers, and in anything logged", async () => {
    const logged: string[] = [];
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      });
    }
    let upstreamCalls = 0;
    const app = createRelay({
      keys: [KEY],
      upstreams: [{ baseURL: "https://up.test/v1", apiKey: "sk-upstream" }],
      fetch: () => {
        upstreamCalls++;
        return Promise.resolve(Response.json({}));
      },
    });
    const seen: string[] = [];
    for (const key of tried) {
      const response = await app.request("/v1/chat/completions", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(response.status).toBe(401);
      seen.push(await response.text(), JSON.stringify([...response.headers]));
    }
    expect(upstreamCalls).toBe(0);
    const everything = [...seen, ...logged].join("\n");
    expect(everything).toContain("invalid_api_key");
    for (const piece of [KEY, ...tried].flatMap(pieces)) {
      expect(everything, `"${piece}" leaked`).not.toContain(piece);
    }
  });
});
