/**
 * Bad input for the relay, shared by the Node and workerd tests (the same body must get the
 * same answer on every runtime): named cases with the answer each must get, and a seeded fuzz
 * of request bodies, encodings and header sets whose every answer must be a 2xx or an
 * OpenAI-shaped 4xx — never a 5xx, never a hang. {@link describeValidation} runs them all.
 *
 * Runtime-neutral: Web APIs only, so workerd can import it.
 *
 * @module
 */

import fc from "fast-check";
import { describe, expect, test } from "vitest";

/** One request to `POST /v1/chat/completions`. */
export interface RelayInput {
  body: string | Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
}

/** A named bad input and the answer it must get. */
export interface ValidationCase {
  name: string;
  input: RelayInput;
  status: number;
  /** A fragment the error message must contain. */
  says: string;
}

const JSON_HEADERS = { "content-type": "application/json" };
const chat = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }], ...extra });
const nested = (depth: number): string => "[".repeat(depth) + "]".repeat(depth);

/**
 * Every case the issue names, each with the 400 it must get on every runtime.
 *
 * @example
 * ```ts
 * for (const c of VALIDATION_CASES) expect((await send(c.input)).status).toBe(c.status);
 * ```
 */
export const VALIDATION_CASES: readonly ValidationCase[] = [
  {
    name: "JSON nested 5,000 levels deep",
    input: { body: `{"messages":[],"deep":${nested(5000)}}`, headers: JSON_HEADERS },
    status: 400,
    says: "64 levels",
  },
  {
    name: "JSON nested 65 levels deep (inside a message)",
    input: {
      body: `{"messages":[{"role":"user","content":${nested(62)}}]}`,
      headers: JSON_HEADERS,
    },
    status: 400,
    says: "64 levels",
  },
  {
    name: '`stream: "true"` (a string)',
    input: { body: chat({ stream: "true" }), headers: JSON_HEADERS },
    status: 400,
    says: "`stream` must be a boolean",
  },
  {
    name: "`stream: 1`",
    input: { body: chat({ stream: 1 }), headers: JSON_HEADERS },
    status: 400,
    says: "`stream` must be a boolean",
  },
  {
    name: "`n: 2`",
    input: { body: chat({ n: 2 }), headers: JSON_HEADERS },
    status: 400,
    says: "`n` must be 1",
  },
  ...["__proto__", "constructor", "toString", "hasOwnProperty"].map((key) => ({
    name: `a fault spec with the key ${key}`,
    input: { body: chat(), headers: { ...JSON_HEADERS, "x-demo-fault": `${key}=1` } },
    status: 400,
    says: `"${key.toLowerCase()}"`,
  })),
  {
    name: "a per-attempt fault spec with the key __proto__",
    input: { body: chat(), headers: { ...JSON_HEADERS, "x-demo-fault": "attempt1=__proto__:1" } },
    status: 400,
    says: '"__proto__"',
  },
];

/**
 * Inputs that must pass: the limits are limits, not approximations.
 *
 * @example
 * ```ts
 * for (const input of ACCEPTED_INPUTS) expect((await send(input)).status).toBe(200);
 * ```
 */
export const ACCEPTED_INPUTS: readonly RelayInput[] = [
  // 64 levels: the body, the message array, its object, then 61 more.
  {
    body: `{"messages":[{"role":"user","content":"hi","x":${nested(61)}}]}`,
    headers: JSON_HEADERS,
  },
  { body: chat({ stream: null, n: 1 }), headers: JSON_HEADERS },
  { body: chat({ stream: false, n: null }), headers: {} },
  // Brackets inside strings are not nesting.
  { body: chat({ user: "[".repeat(500) + '\\"{' }), headers: JSON_HEADERS },
];

// ---- the fuzz ----

const json = fc.jsonValue({ maxDepth: 4 });
const keyName = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.constantFrom("__proto__", "constructor", "prototype", "toString", "messages", "stream", "n"),
);
const message = fc.oneof(
  fc.record({ role: fc.constantFrom("user", "system", "assistant", "tool", "x"), content: json }),
  json,
);
const field = fc.tuple(keyName, json);
/** Mostly `usual`, sometimes anything. */
const mostly = <T>(usual: fc.Arbitrary<T>): fc.Arbitrary<T | fc.JsonValue> =>
  fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: json, weight: 1 });
/** Bodies near the shape the relay accepts, with anything in every field. */
const chatLike = fc.record({
  model: mostly(fc.string({ maxLength: 20 })),
  messages: mostly(fc.array(message, { maxLength: 4 })),
  stream: mostly(fc.oneof(fc.boolean(), fc.constant(null))),
  n: fc.oneof({ arbitrary: fc.constant(1), weight: 4 }, fc.integer({ min: -2, max: 4 }), json),
  extra: fc.array(field, { maxLength: 4 }),
}, { requiredKeys: ["messages"] }).map(({ extra, ...body }) => {
  const record: Record<string, unknown> = { ...body };
  for (const [key, value] of extra ?? []) {
    Object.defineProperty(record, key, { value, enumerable: true, writable: true });
  }
  return JSON.stringify(record);
});
/** How the text goes on the wire: as is, cut, padded, with a BOM, as invalid UTF-8. */
const encoded = fc.tuple(
  fc.oneof(
    { arbitrary: chatLike, weight: 6 },
    { arbitrary: json.map((v) => JSON.stringify(v)), weight: 1 },
    { arbitrary: fc.string({ maxLength: 200 }), weight: 1 },
  ),
  fc.oneof(
    { arbitrary: fc.constant("plain"), weight: 8 },
    fc.constantFrom("truncated", "bom", "latin1", "invalid-utf8", "padded", "deep", "empty"),
  ),
  fc.integer({ min: 0, max: 200 }),
).map(([text, how, n]): string | Uint8Array<ArrayBuffer> => {
  const bytes = new TextEncoder().encode(text);
  switch (how) {
    case "truncated":
      return text.slice(0, n % (text.length + 1));
    case "bom":
      return "\uFEFF" + text;
    case "latin1":
      return Uint8Array.from([...text].map((c) => c.charCodeAt(0) & 0xff));
    case "invalid-utf8":
      return Uint8Array.from([...bytes.slice(0, n), 0xc3, 0x28, 0xff, ...bytes.slice(n)]);
    case "padded":
      return " \n\t".repeat(n) + text + " ".repeat(n);
    case "deep":
      return `{"messages":[${"[".repeat(40 + n * 30)}${"]".repeat(40 + n * 30)}]}`;
    case "empty":
      return "";
    default:
      return text;
  }
});
/** Fault specs that are malformed or harmless: none may turn into a 5xx or a long wait. */
const faultSpec = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.tuple(keyName, fc.string({ maxLength: 8 })).map(([k, v]) => `${k}=${v}`),
  fc.tuple(keyName, fc.nat(99)).map(([k, v]) => `attempt1=${k}:${v}`),
  fc.integer({ min: 1, max: 12 }).map((n) => `words=${n}`),
  fc.constantFrom("reasoning=2", "html=maybe", "status=302", "ping-ms=0", "word-delay=x"),
);
const headerSet = fc.record({
  "content-type": fc.constantFrom(
    "application/json",
    "application/json; charset=latin1",
    "text/plain",
    "multipart/form-data; boundary=x",
    "",
  ),
  "x-demo-fault": fc.oneof({ arbitrary: fc.constant(""), weight: 3 }, faultSpec),
  "content-encoding": fc.constantFrom("gzip", "br", "identity"),
  authorization: fc.oneof(fc.string({ maxLength: 30 }), fc.constant("Bearer ")),
  accept: fc.constantFrom("text/event-stream", "application/json", "*/*"),
  "x-stopstream-attempts": fc.string({ maxLength: 5 }),
}, { requiredKeys: [] });

/**
 * `count` fuzzed requests, the same ones for the same seed on every runtime.
 *
 * @example
 * ```ts
 * for (const input of fuzzInputs(seed, 200)) await check(await send(input));
 * ```
 */
export function fuzzInputs(seed: number, count: number): RelayInput[] {
  const input = fc.record({ body: encoded, headers: headerSet }).map(({ body, headers }) => {
    const clean: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      // Header values cannot hold control characters or non-Latin-1 text.
      const safe = value.replace(/[^\x20-\x7e]/g, "");
      if (safe !== "") clean[name] = safe;
    }
    return { body, headers: clean };
  });
  return fc.sample(input, { seed, numRuns: count });
}

/**
 * Checks one answer: a 2xx read to its end, or a 4xx with an OpenAI-shaped JSON error. Returns
 * a description of what is wrong, or `undefined`.
 *
 * @example
 * ```ts
 * expect(await problemWith(response)).toBeUndefined();
 * ```
 */
export async function problemWith(response: Response): Promise<string | undefined> {
  const text = await response.text();
  if (response.status >= 200 && response.status < 300) return undefined;
  if (response.status < 400 || response.status >= 500) {
    return `status ${response.status}: ${text.slice(0, 300)}`;
  }
  try {
    const { error } = JSON.parse(text) as { error?: { message?: unknown; type?: unknown } };
    if (typeof error?.message === "string" && typeof error.type === "string") return undefined;
  } catch {
    // Not JSON: reported below.
  }
  return `status ${response.status} without an OpenAI error body: ${text.slice(0, 300)}`;
}

/**
 * The relay's answer to `input`, read to its end within `timeoutMs` (a hang rejects), and what
 * is wrong with it ({@linkcode problemWith}), if anything.
 *
 * @example
 * ```ts
 * const { response, problem } = await answerTo((request) => app.request(request), input);
 * ```
 */
export async function answerTo(
  send: (request: Request) => Response | Promise<Response>,
  input: RelayInput,
  timeoutMs = 5_000,
): Promise<{ response: Response; problem?: string }> {
  const request = new Request("http://relay.test/v1/chat/completions", {
    method: "POST",
    headers: input.headers,
    body: input.body,
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no complete answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    const response = await Promise.race([send(request), hang]);
    const problem = await Promise.race([problemWith(response.clone()), hang]);
    return problem === undefined ? { response } : { response, problem };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Asserts that `response` is the refusal `expected` describes: its status, an
 * `invalid_request_error` whose message says what it must.
 *
 * @example
 * ```ts
 * await expectRefusal((await answerTo(send, c.input)).response, c);
 * ```
 */
export async function expectRefusal(response: Response, expected: ValidationCase): Promise<void> {
  expect(response.status).toBe(expected.status);
  const { error } = (await response.json()) as { error: { message: string; type: string } };
  expect(error.type).toBe("invalid_request_error");
  expect(error.message).toContain(expected.says);
}

/** Where {@link describeValidation} sends its requests. */
export interface ValidationTargets {
  /** For the named cases: the relay as deployed on the runtime (the Worker, in workerd). */
  named: (request: Request) => Response | Promise<Response>;
  /** For the inputs at the limits and the fuzz: a relay whose demo does not pace its words. */
  fast: (request: Request) => Response | Promise<Response>;
  /** The fuzz's seed (test/support/seed.ts). */
  seed: number;
}

/**
 * Every validation case, as one test each on the runtime that calls it: each named bad input
 * gets its 400, the inputs at the limits pass, and 300 fuzzed inputs get a 2xx or an
 * OpenAI-shaped 4xx.
 *
 * @example
 * ```ts
 * describeValidation({ named: send, fast: send, seed: seedFor("relay_validation") });
 * ```
 */
export function describeValidation({ named, fast, seed }: ValidationTargets): void {
  describe("bad input is a 400", () => {
    test.each(VALIDATION_CASES)("$name", async (expected) => {
      await expectRefusal((await answerTo(named, expected.input)).response, expected);
    });

    test("inputs at the limits pass", async () => {
      for (const input of ACCEPTED_INPUTS) {
        const { response } = await answerTo(fast, input);
        expect(
          response.status,
          `${String(input.body).slice(0, 80)}: ${await response.clone().text()}`,
        ).toBe(200);
      }
    });

    test(`seeded fuzz (seed ${seed}): every answer is a 2xx or an OpenAI-shaped 4xx`, async () => {
      const statuses: Record<number, number> = {};
      for (const input of fuzzInputs(seed, 300)) {
        const { problem, response } = await answerTo(fast, input);
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        expect(problem, `input ${JSON.stringify({ ...input, body: String(input.body) })}`)
          .toBeUndefined();
      }
      console.log("statuses", statuses);
    }, 60_000);
  });
}
