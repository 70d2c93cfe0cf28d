/**
 * The errors the relay makes itself on each protocol's route are in that protocol's shape, wherever
 * the relay is mounted: the key check's 401 (each route checks the key itself, not by the
 * request's path), a per-key limit's 429, an unexpected failure's 500. Anthropic's shape on
 * `/v1/messages` (and its `count_tokens`), OpenAI's on `/v1/chat/completions` and `/v1/responses`,
 * and on the routes of no protocol (`/v1/models`, `/v1/streams/{id}`).
 */
import { Hono } from "hono";
import { describe, expect, test } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import type { RelayNamespace } from "../../src/relay/durable.ts";
import type { RelayOptions } from "../../src/relay/options.ts";

const BODIES = {
  chat: { model: "m", messages: [{ role: "user", content: "Hi" }] },
  messages: { model: "m", max_tokens: 50, messages: [{ role: "user", content: "Hi" }] },
  responses: { model: "m", input: "Hi" },
};

/** Each route, its body, and the shape its errors have. */
const ROUTES = [
  { path: "/v1/chat/completions", body: BODIES.chat, shape: "openai" },
  { path: "/v1/messages", body: BODIES.messages, shape: "anthropic" },
  { path: "/v1/messages/count_tokens", body: BODIES.messages, shape: "anthropic" },
  { path: "/v1/responses", body: BODIES.responses, shape: "openai" },
] as const;

const CHAT_ROUTES = ROUTES.filter((route) => !route.path.endsWith("/count_tokens"));

/** A relay whose upstream must never be asked; `calls` counts the attempts. */
function relay(options: Partial<RelayOptions> = {}) {
  const calls: string[] = [];
  const app = createRelay({
    upstreams: [{ baseURL: "https://up.test/v1", apiKey: "sk-up", protocol: "anthropic-messages" }],
    keys: ["relay-key"],
    maxRetries: 0,
    fetch: (input) => {
      calls.push(String(input));
      return Promise.resolve(new Response("no", { status: 500 }));
    },
    ...options,
  });
  return { app, calls };
}

function post(
  app: Pick<Hono, "request">,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  }));
}

/** The body's error, checked against the shape: Anthropic's `{type: "error", error: {type, message}}`. */
async function shapedError(
  response: Response,
  status: number,
  shape: "openai" | "anthropic",
): Promise<{ type: string; message: string; code?: string | null }> {
  expect(response.status).toBe(status);
  const body = await response.json() as Record<string, unknown>;
  const error = body.error as { type: string; message: string; code?: string | null };
  if (shape === "anthropic") {
    expect(Object.keys(body).sort()).toEqual(["error", "type"]);
    expect(body.type).toBe("error");
    expect(Object.keys(error).sort()).toEqual(["message", "type"]);
  } else {
    expect(Object.keys(body)).toEqual(["error"]);
    expect(Object.keys(error).sort()).toEqual(["code", "message", "param", "type"]);
  }
  expect(typeof error.message).toBe("string");
  return error;
}

describe("the key check answers in the shape of the route's protocol", () => {
  test.each(ROUTES)(
    "$path, mounted at the root and under a prefix",
    async ({ path, body, shape }) => {
      const { app, calls } = relay();
      const mounted = new Hono().route("/api", app);
      for (const [target, url] of [[app, path], [mounted, `/api${path}`]] as const) {
        for (const headers of [{}, { "x-api-key": "wrong" }, { authorization: "Bearer wrong" }]) {
          const refused = await post(target, url, body, headers);
          expect(refused.headers.get("www-authenticate")).toBe("Bearer");
          const error = await shapedError(refused, 401, shape);
          if (shape === "anthropic") expect(error.type).toBe("authentication_error");
          else {expect(error).toMatchObject({
              type: "invalid_request_error",
              code: "invalid_api_key",
            });}
          // Both ways of sending the key work on every route, and the message names both.
          expect(error.message).toMatch(/Authorization: Bearer <key>.*x-api-key: <key>/);
        }
      }
      expect(calls).toEqual([]);
    },
  );

  test("a wrong method is refused after the key check, in the route's shape", async () => {
    const { app } = relay();
    for (const { path, shape } of ROUTES) {
      const refused = await Promise.resolve(app.request(path));
      await shapedError(refused, 401, shape);
      const keyed = await Promise.resolve(
        app.request(path, { headers: { "x-api-key": "relay-key" } }),
      );
      await shapedError(keyed, 405, shape);
    }
  });

  test("routes of no protocol (models, streams, unknown ones) answer in OpenAI's shape", async () => {
    const streams: RelayNamespace = {
      idFromName: (name) => name,
      get: () => ({ fetch: () => Promise.reject(new Error("no stream is asked for")) }),
    };
    const { app } = relay({ streams });
    const mounted = new Hono().route("/api", app);
    const id = "0123456789abcdef0123456789abcdef";
    for (const path of ["/v1/models", `/v1/streams/${id}`, "/v1/unknown"]) {
      await shapedError(await Promise.resolve(app.request(path)), 401, "openai");
      await shapedError(await Promise.resolve(mounted.request(`/api${path}`)), 401, "openai");
    }
    const cancel = await Promise.resolve(
      app.request(`/v1/streams/${id}/cancel`, { method: "POST" }),
    );
    await shapedError(cancel, 401, "openai");
  });
});

describe("the other errors the relay makes on a protocol's route are in its shape", () => {
  test.each(CHAT_ROUTES)(
    "$path: a per-key limit's 429 keeps its retry-after",
    async ({ path, body, shape }) => {
      const asked: string[] = [];
      const limits: RelayNamespace = {
        idFromName: (name) => name,
        get: () => ({
          fetch: (request) => {
            asked.push(new URL(request.url).pathname);
            return Promise.resolve(Response.json({ refused: "rpm", retryAfterS: 30 }));
          },
        }),
      };
      const { app, calls } = relay({ limits, keyRpm: 1 });
      const refused = await post(app, path, body, { "x-api-key": "relay-key" });
      expect(refused.headers.get("retry-after")).toBe("30");
      const error = await shapedError(refused, 429, shape);
      expect(error.message).toMatch(/1 requests per minute/);
      if (shape === "anthropic") expect(error.type).toBe("rate_limit_error");
      else expect(error).toMatchObject({ type: "rate_limit_error", code: "rate_limit_exceeded" });
      expect(asked).toEqual(["/acquire"]);
      expect(calls).toEqual([]);
    },
  );

  test.each(CHAT_ROUTES)(
    "$path: a failure nobody expected is a 500 that tells nothing",
    async ({ path, body, shape }) => {
      // A resumable stream whose Durable Object cannot be reached: its start throws.
      const streams: RelayNamespace = {
        idFromName: (name) => name,
        get: () => ({ fetch: () => Promise.reject(new Error("object unreachable: secret-host")) }),
      };
      const { app, calls } = relay({ streams });
      const failed = await post(app, path, { ...body, stream: true }, {
        "x-api-key": "relay-key",
        "x-stopstream-resumable": "true",
      });
      const error = await shapedError(failed, 500, shape);
      expect(error.message).toBe("The relay failed unexpectedly.");
      if (shape === "anthropic") expect(error.type).toBe("api_error");
      else expect(error.type).toBe("server_error");
      expect(calls).toEqual([]);
    },
  );
});
