/**
 * Mid-stream continuation on request (`x-stopstream-on-partial: continue`, or `createRelay`'s
 * `onPartial: "continue"`): a real loopback upstream ends its body mid-answer once; the relay
 * asks it for the rest (the client's `onPartial: "continue"`), and the caller's stream just goes
 * on, with no text twice. Without it, the drop ends the stream with an error event, as before.
 */

import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import type { RelayOptions } from "../../src/relay/options.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";

const WORDS = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog."];
const ANSWER = WORDS.join("");
/** Words the first request sends before its body ends mid-event. */
const CUT_AFTER = 4;
const encoder = new TextEncoder();

interface Message {
  role: string;
  content: string;
  prefix?: boolean;
}

let server: NodeServer;
let cuts = 0;
const bodies: Array<{ messages: Message[] }> = [];
const paths: string[] = [];

/** The first request of each test is cut; a request that ends in a prefix gets what follows it. */
async function upstream(request: Request): Promise<Response> {
  const body = await request.json() as { messages: Message[] };
  bodies.push(body);
  paths.push(new URL(request.url).pathname);
  const last = body.messages.at(-1)!;
  const prefix = last.role === "assistant" && last.prefix === true ? last.content : "";
  const from = WORDS.findIndex((_, i) => WORDS.slice(0, i).join("") === prefix);
  if (from === -1) throw new Error(`not a prefix of the answer: ${JSON.stringify(prefix)}`);
  const cut = prefix === "" && cuts-- > 0;
  const id = `chatcmpl-up-${bodies.length}`;
  const chunk = (delta: object, finish: string | null = null): string =>
    `data: ${
      JSON.stringify({
        id,
        object: "chat.completion.chunk",
        created: 1,
        model: "m",
        choices: [{ index: 0, delta, finish_reason: finish }],
      })
    }\n\n`;
  const words = cut ? WORDS.slice(0, CUT_AFTER) : WORDS.slice(from);
  let text = chunk({ role: "assistant", content: "" });
  for (const word of words) text += chunk({ content: word });
  text += cut ? chunk({ content: " never" }).slice(0, 40) : chunk({}, "stop") + "data: [DONE]\n\n";
  return new Response(encoder.encode(text), { headers: { "content-type": "text/event-stream" } });
}

beforeAll(async () => {
  server = await startNodeServer(upstream);
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  bodies.length = 0;
  paths.length = 0;
});

function relay(options: Partial<RelayOptions> = {}) {
  return createRelay({
    upstreams: [{ baseURL: `${server.url}/v1`, model: "m" }],
    retry: { initialDelayMs: 1, maxDelayMs: 1 },
    ...options,
  });
}

async function ask(
  app: ReturnType<typeof createRelay>,
  headers: Record<string, string> = {},
): Promise<{ status: number; raw: string; data: string[] }> {
  cuts = 1;
  const response = await app.request("/v1/chat/completions", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "Say it" }],
    }),
  });
  const raw = await response.text();
  const data = raw.split("\n").filter((line) => line.startsWith("data: ")).map((line) =>
    line.slice(6)
  );
  return { status: response.status, raw, data };
}

function contentOf(data: string[]): string {
  return data.filter((d) => d !== "[DONE]").map((d) =>
    (JSON.parse(d) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta
      ?.content ?? ""
  ).join("");
}

describe("x-stopstream-on-partial: continue", () => {
  test("a drop mid-answer is continued on the same upstream: the whole answer once, one id, [DONE]", async () => {
    const { status, data } = await ask(relay(), { "x-stopstream-on-partial": "continue" });
    expect(status).toBe(200);
    expect(contentOf(data)).toBe(ANSWER);
    expect(data.at(-1)).toBe("[DONE]");
    expect(data.some((d) => d.includes('"error"'))).toBe(false);
    const ids = new Set(data.slice(0, -1).map((d) => (JSON.parse(d) as { id: string }).id));
    expect(ids.size).toBe(1);
    // Two upstream requests: the second asks for what follows the text the caller already has.
    expect(bodies).toHaveLength(2);
    expect(bodies[1]!.messages.at(-1)).toEqual({
      role: "assistant",
      content: WORDS.slice(0, CUT_AFTER).join(""),
      prefix: true,
    });
  });

  test("an upstream whose retries are used up hands the rest of the answer to the next one", async () => {
    const app = relay({
      maxRetries: 0,
      upstreams: [
        { baseURL: `${server.url}/primary/v1`, model: "m" },
        { baseURL: `${server.url}/fallback/v1`, model: "m" },
      ],
    });
    const { raw, data } = await ask(app, {
      "x-stopstream-on-partial": "continue",
      "x-stopstream-progress": "true",
    });
    expect(contentOf(data)).toBe(ANSWER);
    expect(data.at(-1)).toBe("[DONE]");
    expect(paths).toEqual(["/primary/v1/chat/completions", "/fallback/v1/chat/completions"]);
    expect(bodies[1]!.messages.at(-1)).toEqual({
      role: "assistant",
      content: WORDS.slice(0, CUT_AFTER).join(""),
      prefix: true,
    });
    expect(raw).toMatch(/^: fallback attempt=2 reason=connection t=\d+$/m);
  });

  test('createRelay\'s onPartial: "continue" does the same without the header', async () => {
    const { data } = await ask(relay({ onPartial: "continue" }));
    expect(contentOf(data)).toBe(ANSWER);
    expect(data.at(-1)).toBe("[DONE]");
    expect(bodies).toHaveLength(2);
  });

  test("with progress comments, a comment marks the join", async () => {
    const { raw, data } = await ask(relay(), {
      "x-stopstream-on-partial": "continue",
      "x-stopstream-progress": "true",
    });
    expect(contentOf(data)).toBe(ANSWER);
    const join = raw.split("\n").find((line) => line.startsWith(": continue "));
    expect(join).toMatch(
      new RegExp(
        `^: continue attempt=2 after_chars=${
          WORDS.slice(0, CUT_AFTER).join("").length
        } delay_ms=\\d+ reason=connection t=\\d+$`,
      ),
    );
    // Between the text before the drop and the text after it.
    const before = raw.indexOf(JSON.stringify(WORDS[CUT_AFTER - 1]));
    const after = raw.indexOf(JSON.stringify(WORDS[CUT_AFTER]));
    expect(before).toBeLessThan(raw.indexOf(join!));
    expect(raw.indexOf(join!)).toBeLessThan(after);
  });

  test("default: the drop ends the stream with an error event, no [DONE], one upstream request", async () => {
    const { data } = await ask(relay());
    expect(contentOf(data.slice(0, -1))).toBe(WORDS.slice(0, CUT_AFTER).join(""));
    expect(data.includes("[DONE]")).toBe(false);
    expect(JSON.parse(data.at(-1)!)).toEqual({
      error: expect.objectContaining({ code: "incomplete_stream" }),
    });
    expect(bodies).toHaveLength(1);
  });

  test("x-stopstream-on-partial: error turns the relay's continue off for one request", async () => {
    const { data } = await ask(relay({ onPartial: "continue" }), {
      "x-stopstream-on-partial": "error",
    });
    expect(data.includes("[DONE]")).toBe(false);
    expect(bodies).toHaveLength(1);
  });

  test("any other value is a 400 that names the header, before any upstream request", async () => {
    const { status, raw } = await ask(relay(), { "x-stopstream-on-partial": "retry" });
    expect(status).toBe(400);
    expect(JSON.parse(raw)).toEqual({
      error: expect.objectContaining({
        code: "invalid_on_partial",
        message: expect.stringContaining("x-stopstream-on-partial"),
      }),
    });
    expect(bodies).toHaveLength(0);
  });

  test("createRelay refuses an onPartial it does not know", () => {
    expect(() => relay({ onPartial: "retry" as "continue" })).toThrow(/onPartial/);
  });
});
