/**
 * The relay tells what is wrong without telling secrets: misconfigured bindings are named,
 * never quoted (on every route), an upstream's non-SSE page is not echoed, the relay's own
 * upstream key being refused is a 502 `upstream_auth_error`, a passed-on 429 keeps its wait.
 */

import { afterEach, describe, expect, it, vi } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import type { RelayEnv } from "../../src/relay/env.ts";
import { createWorkerApp } from "../../src/apps/worker/worker.ts";
import { chatBody, fakeUpstream, postChat } from "./helpers.ts";

const TOKEN = "acct-tok-7f3a9c2e5b1d";
afterEach(() => vi.restoreAllMocks());

/** Each request every route could get. */
const ROUTES: Array<[string, RequestInit]> = [
  ["/healthz", {}],
  ["/v1/models", {}],
  ["/v1/chat/completions", { method: "POST", body: JSON.stringify(chatBody()) }],
  ["/demo/v1/chat/completions", { method: "POST", body: "{}" }],
  ["/nowhere", {}],
];

describe("misconfigured bindings are named, never quoted", () => {
  it.each<[string, RelayEnv, string]>([
    [
      "a base URL without a scheme",
      { UPSTREAM_BASE_URL: `gw.example/${TOKEN}` },
      "UPSTREAM_BASE_URL",
    ],
    [
      "a base URL with another scheme",
      { UPSTREAM_BASE_URL: `ftp://gw/${TOKEN}` },
      "UPSTREAM_BASE_URL",
    ],
    ["a protocol that is a pasted key", {
      UPSTREAM_BASE_URL: "https://a.test/v1",
      UPSTREAM_PROTOCOL: TOKEN,
    }, "UPSTREAM_PROTOCOL"],
    ["KEEPALIVE_MS that is not a number", { KEEPALIVE_MS: TOKEN }, "KEEPALIVE_MS"],
    ["KEEPALIVE_MS beyond a timer's reach", { KEEPALIVE_MS: "2500000000" }, "KEEPALIVE_MS"],
    // Set but empty would mean "no auth": it must fail closed instead.
    ["RELAY_KEYS that holds no key", { RELAY_KEYS: " , ," }, "RELAY_KEYS"],
    ["RELAY_KEYS that is empty", { RELAY_KEYS: "" }, "RELAY_KEYS"],
    ["COOLDOWN_FAILURES that is not a number", { COOLDOWN_FAILURES: TOKEN }, "COOLDOWN_FAILURES"],
    ["COOLDOWN_FAILURES below 0", { COOLDOWN_FAILURES: "-1" }, "COOLDOWN_FAILURES"],
    ["COOLDOWN_MS that is not a number", { COOLDOWN_MS: TOKEN }, "COOLDOWN_MS"],
    ["COOLDOWN_MS of 0", { COOLDOWN_MS: "0" }, "COOLDOWN_MS"],
    ["FALLBACKS that is not JSON", {
      UPSTREAM_BASE_URL: "https://a.test/v1",
      FALLBACKS: `[${TOKEN}`,
    }, "FALLBACKS"],
    ["FALLBACKS that is not an array", {
      UPSTREAM_BASE_URL: "https://a.test/v1",
      FALLBACKS: `{"x":"${TOKEN}"}`,
    }, "FALLBACKS"],
    ["a FALLBACKS entry with a bad URL", {
      UPSTREAM_BASE_URL: "https://a.test/v1",
      FALLBACKS: `[{"baseURL":"https//gw/${TOKEN}"}]`,
    }, "FALLBACKS[0].baseURL"],
    ["a FALLBACKS entry with a bad protocol", {
      UPSTREAM_BASE_URL: "https://a.test/v1",
      FALLBACKS: `[{"baseURL":"https://b.test","protocol":"${TOKEN}"}]`,
    }, "FALLBACKS[0].protocol"],
    ["apiKeySecret holding the key itself", {
      UPSTREAM_BASE_URL: "https://a.test/v1",
      FALLBACKS: `[{"baseURL":"https://b.test","apiKeySecret":"${TOKEN}"}]`,
    }, "FALLBACKS[0].apiKeySecret"],
    ["a FALLBACKS entry holding a key", {
      UPSTREAM_BASE_URL: "https://a.test/v1",
      FALLBACKS: `[{"baseURL":"https://b.test","apiKey":"${TOKEN}"}]`,
    }, "FALLBACKS[0]"],
  ])(
    "%s: every route answers 500 naming the binding, never its value",
    async (_name, env, binding) => {
      const app = createWorkerApp(env);
      for (const [path, init] of ROUTES) {
        const response = await app.request(path, init);
        expect(response.status).toBe(500);
        const text = await response.text();
        expect(text).not.toContain(TOKEN.slice(0, 8));
        const { error } = JSON.parse(text) as { error: { message: string; code: string } };
        expect(error.code).toBe("relay_misconfigured");
        expect(error.message).toContain(binding);
      }
    },
  );

  it("createRelay's own errors quote no base URL either", () => {
    expect(() => createRelay({ upstreams: [{ baseURL: `gw.example/${TOKEN}` }] }))
      .toThrow(/upstreams\[0\]\.baseURL must be an absolute http\(s\) URL$/);
  });
});

describe("what an upstream says is not always passed on", () => {
  function relay(respond: () => Response) {
    const upstream = fakeUpstream(respond);
    const app = createRelay({
      upstreams: [{ baseURL: "https://up.test/v1", apiKey: "sk-relay-upstream-key-0001" }],
      fetch: upstream.fetch,
      maxRetries: 0,
    });
    return { app, upstream };
  }

  it("a non-SSE 200 page is not echoed: 502 upstream_protocol, a short excerpt in the log", async () => {
    const page = `<html><body>Sign in at https://sso.internal.corp/${TOKEN} ${"x".repeat(5000)}`;
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { app } = relay(() => new Response(page, { headers: { "content-type": "text/html" } }));
    for (const stream of [true, false]) {
      const response = await postChat(app, chatBody({ stream }));
      expect(response.status).toBe(502);
      const text = await response.text();
      expect(text).not.toContain("sso.internal.corp");
      expect(JSON.parse(text).error.code).toBe("upstream_protocol");
    }
    const logged = warn.mock.calls.map((args) => args.join(" "));
    expect(logged).toHaveLength(2);
    for (const line of logged) {
      expect(line).toContain("sso.internal.corp");
      expect(line.length).toBeLessThan(400);
    }
  });

  it.each([401, 403])(
    "an upstream %i (the relay's key refused) is a 502 upstream_auth_error",
    async (status) => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      const { app, upstream } = relay(() =>
        Response.json({
          error: {
            message: "Incorrect API key provided: sk-relay-****0001",
            code: "invalid_api_key",
          },
        }, { status })
      );
      for (const stream of [true, false]) {
        const response = await postChat(app, chatBody({ stream }));
        expect(response.status).toBe(502);
        const { error } = (await response.json()) as { error: { code: string; message: string } };
        expect(error.code).toBe("upstream_auth_error");
        expect(error.message).not.toContain("sk-relay");
      }
      expect(upstream.seen).toHaveLength(2);
      expect(warn.mock.calls.join(" ")).not.toContain("sk-relay");
    },
  );

  it("a 429 passed on keeps its retry-after (and retry-after-ms), a malformed one is dropped", async () => {
    const limited = (headers: Record<string, string>) => () =>
      Response.json({ error: { message: "Rate limit reached", type: "rate_limit_error" } }, {
        status: 429,
        headers,
      });
    for (const stream of [true, false]) {
      const kept = await postChat(
        relay(limited({ "retry-after": "7", "retry-after-ms": "6500" })).app,
        chatBody({ stream }),
      );
      expect(kept.status).toBe(429);
      expect(kept.headers.get("retry-after")).toBe("7");
      expect(kept.headers.get("retry-after-ms")).toBe("6500");
      const dropped = await postChat(
        relay(limited({ "retry-after": "-1" })).app,
        chatBody({ stream }),
      );
      expect(dropped.status).toBe(429);
      expect(dropped.headers.get("retry-after")).toBeNull();
    }
  });

  it("an upstream redirect to another origin is a 502 upstream_redirect; the origin goes to the log only", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { app, upstream } = relay(() =>
      new Response(null, { status: 307, headers: { location: "https://internal.corp:8443/v1" } })
    );
    const response = await postChat(app, chatBody({ stream: true }));
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(JSON.parse(text).error.code).toBe("upstream_redirect");
    expect(text).not.toContain("internal.corp");
    expect(warn.mock.calls.join(" ")).toContain("https://internal.corp:8443");
    expect(upstream.seen).toHaveLength(1);
  });
});
