/**
 * The relay's call options: checked once by `createRelay` (not by every request), and carried
 * intact to a resumable stream's Durable Object, `Infinity` (no limit) included.
 */

import { describe, expect, test } from "vitest";
import type { Hono } from "hono";
import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import { createRelay } from "../../src/relay/app.ts";
import { relayOptionsFromEnv } from "../../src/relay/env.ts";
import { decodePlan, encodePlan, type StartPlan } from "../../src/relay/streams/wire.ts";

function planWith(call: Partial<StartPlan["call"]>): StartPlan {
  return {
    id: "0".repeat(32),
    owner: "",
    call: {
      baseURL: "https://api.example.com/v1",
      // A caller's null stays null: only the limits' nulls mean "no limit".
      body: { model: "m", messages: [{ role: "user", content: "hi" }], seed: null },
      ...call,
    },
    upstreams: [0],
    chat: { id: "chatcmpl-1", model: "m", includeUsage: false },
    keepAliveMs: 15_000,
    ttlMs: 600_000,
    maxBytes: 8 << 20,
  };
}

describe("the start plan of a resumable stream", () => {
  test("limits of Infinity arrive as Infinity, in the call and in each fallback", () => {
    const plan = planWith({
      timeouts: { idleMs: Infinity, headersMs: 5_000, totalMs: Infinity },
      retry: { maxRetryAfterMs: Infinity, initialDelayMs: 0 },
      maxRetries: 1,
      fallbacks: [{
        baseURL: "https://other.example.com/v1",
        timeouts: { firstEventMs: Infinity },
      }],
    });
    const text = encodePlan(plan);
    // What JSON.stringify alone sends: null, which streamChat refuses.
    expect(JSON.parse(JSON.stringify(plan)).call.timeouts.idleMs).toBeNull();
    expect(decodePlan(text)).toEqual(plan);
  });

  test("a fallback with no key arrives with no key, not without one (which would inherit)", () => {
    const plan = planWith({
      apiKey: "sk-primary",
      fallbacks: [
        { baseURL: "https://api.example.com/v1", apiKey: undefined as unknown as string },
        { baseURL: "https://api.example.com/v1", apiKey: "sk-own" },
      ],
    });
    const [keyless, keyed] = decodePlan(encodePlan(plan)).call.fallbacks!;
    expect("apiKey" in keyless! && keyless.apiKey === undefined).toBe(true);
    expect(keyed!.apiKey).toBe("sk-own");
  });

  test("a non-finite limit other than Infinity is refused, not sent as no limit", () => {
    for (const value of [Number.NaN, -Infinity]) {
      expect(() => encodePlan(planWith({ timeouts: { idleMs: value } }))).toThrow(
        `timeouts.idleMs cannot be ${value}`,
      );
    }
  });
});

describe("createRelay checks the call options once", () => {
  const upstreams = [{ baseURL: "https://api.example.com/v1" }];
  test.each([
    [
      "timeouts.idleMs NaN",
      { timeouts: { idleMs: Number.NaN } },
      RangeError,
      "`timeouts.idleMs` must be a number ≥ 1",
    ],
    [
      "timeouts.totalMs 0",
      { timeouts: { totalMs: 0 } },
      RangeError,
      "`timeouts.totalMs` must be a number ≥ 1",
    ],
    [
      "retry.maxDelayMs -1",
      { retry: { maxDelayMs: -1 } },
      RangeError,
      "`retry.maxDelayMs` must be a number ≥ 0",
    ],
    ["maxRetries 1.5", { maxRetries: 1.5 }, RangeError, "`maxRetries` must be an integer ≥ 0"],
    [
      "timeouts.idleMS",
      { timeouts: { idleMS: 1 } },
      TypeError,
      "`timeouts.idleMS` is not a streamChat option; did you",
    ],
  ])("%s is refused at once", (_, options, type, message) => {
    expect(() => createRelay({ upstreams, ...options } as never)).toThrow(type);
    expect(() => createRelay({ upstreams, ...options } as never)).toThrow(
      `createRelay: ${message}`,
    );
  });

  test("a keepAliveMs longer than a timer takes is refused (Node would fire it every millisecond)", () => {
    expect(() => createRelay({ upstreams, keepAliveMs: 2_500_000_000 })).toThrow(RangeError);
    expect(() => createRelay({ upstreams, keepAliveMs: 2_147_483_647 })).not.toThrow();
  });

  test("limits of Infinity are accepted", () => {
    expect(() =>
      createRelay({
        upstreams,
        timeouts: { idleMs: Infinity, totalMs: Infinity },
        retry: { maxRetryAfterMs: Infinity },
      })
    ).not.toThrow();
  });
});

describe("which upstream gets which key is settled in configured order", () => {
  const KEY = "sk-primary-0123456789";
  const answer = () =>
    new Response(
      'data: {"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\n' +
        "data: [DONE]\n\n",
      { headers: { "content-type": "text/event-stream" } },
    );

  test("a fallback on the primary's base URL keeps the primary's key while the primary cools down", async () => {
    const seen: Array<[unknown, string | null]> = [];
    const app = createRelay({
      ...relayOptionsFromEnv({
        UPSTREAM_BASE_URL: "https://api.openai.test/v1",
        UPSTREAM_API_KEY: KEY,
        UPSTREAM_MODEL: "big",
        FALLBACKS: '[{"baseURL":"https://api.openai.test/v1/","model":"small"}]',
        COOLDOWN_FAILURES: "1",
      }),
      maxRetries: 0,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        const { model } = await request.json();
        seen.push([model, request.headers.get("authorization")]);
        return model === "big" ? new Response("overloaded", { status: 503 }) : answer();
      },
    });
    const ask = () =>
      app.request("/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
      });
    expect((await ask()).status).toBe(200); // the primary fails once and cools down
    const second = await ask(); // the fallback goes first now
    expect(second.status).toBe(200);
    expect(await second.text()).toContain('"content":"ok"');
    expect(seen).toEqual([["big", `Bearer ${KEY}`], ["small", `Bearer ${KEY}`], [
      "small",
      `Bearer ${KEY}`,
    ]]);
  });

  test("a fallback elsewhere, or one given an empty key, gets none", async () => {
    const seen: Array<string | null> = [];
    const app = createRelay({
      upstreams: [
        { baseURL: "https://api.openai.test/v1", apiKey: KEY },
        { baseURL: "https://api.openai.test/v1", apiKey: "" },
        { baseURL: "https://other.test/v1" },
      ],
      maxRetries: 0,
      fetch: (input, init) => {
        seen.push(new Request(input, init).headers.get("authorization"));
        return Promise.resolve(
          seen.length < 3 ? new Response("overloaded", { status: 503 }) : answer(),
        );
      },
    });
    const response = await app.request("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
    expect(seen).toEqual([`Bearer ${KEY}`, null, null]);
  });
});

describe("an upstream that cannot honour the request is skipped", () => {
  const ask = (app: ReturnType<typeof createRelay>) =>
    app.request("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        messages: [{ role: "user", content: "hi" }],
        response_format: { type: "json_object" },
      }),
    });

  test("a JSON response_format goes past an Anthropic primary to a fallback that has JSON mode", async () => {
    const hosts: string[] = [];
    const app = createRelay({
      upstreams: [
        { baseURL: "https://anthropic.test/v1", protocol: "anthropic-messages" },
        { baseURL: "https://openai.test/v1" },
      ],
      maxRetries: 0,
      fetch: async (input, init) => {
        const request = new Request(input, init);
        hosts.push(new URL(request.url).host);
        expect((await request.json()).response_format).toEqual({ type: "json_object" });
        return new Response(
          'data: {"choices":[{"index":0,"delta":{"content":"{}"},"finish_reason":"stop"}]}\n\n' +
            "data: [DONE]\n\n",
          { headers: { "content-type": "text/event-stream" } },
        );
      },
    });
    const response = await ask(app);
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe("{}");
    expect(hosts).toEqual(["openai.test"]);
  });

  test("with no such upstream, a 400 unsupported_parameter and no request", async () => {
    let requests = 0;
    const app = createRelay({
      upstreams: [{ baseURL: "https://anthropic.test/v1", protocol: "anthropic-messages" }],
      fetch: () => {
        requests++;
        return Promise.reject(new Error("no request may be sent"));
      },
    });
    const response = await ask(app);
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("unsupported_parameter");
    expect(requests).toBe(0);
  });
});

describe("an answer held whole (stream: false) has a limit", () => {
  test.each([["a byte stream (as fetch gives)", "bytes" as const], ["a plain stream", undefined]])(
    "an upstream that never stops, %s, is cut at maxStreamBytes: 502 answer_too_large, its connection closed",
    async (_kind, type) => {
      const encoder = new TextEncoder();
      const piece = encoder.encode(
        `data: ${
          JSON.stringify({ choices: [{ index: 0, delta: { content: "x".repeat(4000) } }] })
        }\n\n`,
      );
      let sent = 0;
      let cancelled!: () => void;
      const closed = new Promise<void>((resolve) => (cancelled = resolve));
      const app = createRelay({
        upstreams: [{ baseURL: "https://runaway.test/v1" }],
        maxStreamBytes: 64 * 1024,
        maxRetries: 0,
        fetch: () =>
          Promise.resolve(
            new Response(
              new ReadableStream({
                type,
                pull(controller: ReadableStreamController<Uint8Array>) {
                  sent += piece.byteLength;
                  // A byte stream takes the buffer it is given.
                  (controller as ReadableStreamDefaultController<Uint8Array>).enqueue(
                    piece.slice(),
                  );
                },
                cancel: () => cancelled(),
              } as UnderlyingDefaultSource<Uint8Array>),
              { headers: { "content-type": "text/event-stream" } },
            ),
          ),
      });
      const response = await app.request("/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], stream: false }),
      });
      expect(response.status).toBe(502);
      expect((await response.json()).error.code).toBe("answer_too_large");
      await closed;
      // Cut near the limit, not after the upstream had sent what it liked.
      expect(sent).toBeLessThan(4 * 64 * 1024);
    },
  );
});

describe("the limit and the ids of what the relay holds", () => {
  const encoder = new TextEncoder();
  const event = (delta: Record<string, unknown>, finish: string | null = null) =>
    encoder.encode(
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`,
    );
  const post = (app: ReturnType<typeof createRelay>, extra: Record<string, unknown> = {}) =>
    app.request("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }], ...extra }),
    });

  test("the limit is per answer: a retry after a drop starts counting over", async () => {
    let attempts = 0;
    const app = createRelay({
      upstreams: [{ baseURL: "https://up.test/v1" }],
      maxStreamBytes: 10_000,
      maxRetries: 1,
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
      fetch: () => {
        const attempt = ++attempts;
        const chunks = [event({ content: "x".repeat(6000) })];
        return Promise.resolve(
          new Response(
            new ReadableStream({
              type: "bytes",
              pull(controller) {
                const next = chunks.shift();
                if (next !== undefined) return controller.enqueue(next);
                if (attempt === 1) return controller.error(new TypeError("connection reset"));
                controller.enqueue(event({}, "stop"));
                controller.enqueue(encoder.encode("data: [DONE]\n\n"));
                controller.close();
              },
            }),
            { headers: { "content-type": "text/event-stream" } },
          ),
        );
      },
    });
    const response = await post(app, { stream: false });
    expect(response.status).toBe(200);
    expect((await response.json()).choices[0].message.content).toBe("x".repeat(6000));
    expect(attempts).toBe(2);
  });

  test("a call the provider gave no id (the legacy function_call) gets one, streamed or whole", async () => {
    const app = createRelay({
      upstreams: [{ baseURL: "https://up.test/v1" }],
      fetch: () =>
        Promise.resolve(
          new Response(
            [
              event({ role: "assistant", content: null, function_call: { name: "f" } }),
              event({ function_call: { arguments: "{}" } }),
              event({}, "function_call"),
              encoder.encode("data: [DONE]\n\n"),
            ].map((bytes) => new TextDecoder().decode(bytes)).join(""),
            { headers: { "content-type": "text/event-stream" } },
          ),
        ),
    });
    const whole = await (await post(app, { stream: false })).json();
    expect(whole.choices[0].message.tool_calls).toEqual([
      { id: "call_0", type: "function", function: { name: "f", arguments: "{}" } },
    ]);
    const streamed = await (await post(app, { stream: true })).text();
    expect(streamed).toContain('"tool_calls":[{"index":0,"id":"call_0","type":"function"');
  });
});

describe("the cors option", () => {
  const ALLOWED = "https://app.example.com";
  const OTHER = "https://other.example.com";
  const ask = (app: Hono, origin: string, method = "GET") =>
    app.request("/healthz", {
      method,
      headers: {
        origin,
        ...(method === "OPTIONS" ? { "access-control-request-method": "POST" } : {}),
      },
    });

  test.each([["a string", ALLOWED], ["a list", [OTHER.replace("other", "third"), ALLOWED]]])(
    "{ origin: %s } allows that origin only, preflight included",
    async (_form, origin) => {
      const app = createDemoRelay({ cors: { origin } });
      for (const method of ["GET", "OPTIONS"]) {
        const allowed = await ask(app, ALLOWED, method);
        expect(allowed.headers.get("access-control-allow-origin"), method).toBe(ALLOWED);
        const other = await ask(app, OTHER, method);
        expect(other.headers.get("access-control-allow-origin"), method).toBeNull();
      }
      // What a browser app reads of the answer: which upstream answered, and its attempts.
      expect((await ask(app, ALLOWED)).headers.get("access-control-expose-headers")).toContain(
        "x-stopstream-upstream",
      );
    },
  );

  test("by default no origin is allowed; true allows any", async () => {
    const closed = await ask(createDemoRelay(), OTHER);
    expect(closed.headers.get("access-control-allow-origin")).toBeNull();
    const open = await ask(createDemoRelay({ cors: true }), OTHER);
    expect(open.headers.get("access-control-allow-origin")).toBe("*");
  });
});
