/**
 * The relay outside Workers (issue #31): mounted in a Hono app of its own, with no resumable
 * storage. It says so rather than ignore `x-stopstream-resumable`, its `/v1/streams/*` answer in
 * OpenAI's shape, and `GET /v1/models` lists what a caller may name, an upstream configured
 * without a `model` included. The upstream is an injected `fetch` that records what it was sent.
 */

import { Hono } from "hono";
import { afterEach, describe, expect, test, vi } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import type { RelayFetch, RelayOptions } from "../../src/relay/options.ts";
import { openAIText } from "../support/sse.ts";

interface Sent {
  url: string;
  headers: Headers;
  redirect: RequestRedirect | undefined;
}

/** An upstream that answers `GET …/models` from `lists` (by base URL) and chat with "ok". */
function upstream(lists: Record<string, () => Response> = {}) {
  const sent: Sent[] = [];
  const fetch: RelayFetch = (input, init) => {
    const url = String(input);
    sent.push({ url, headers: new Headers(init?.headers), redirect: init?.redirect });
    const list = Object.entries(lists).find(([base]) => url.startsWith(`${base}/models`));
    if (list !== undefined) return Promise.resolve(list[1]());
    return Promise.resolve(
      new Response(openAIText(["o", "k"]), { headers: { "content-type": "text/event-stream" } }),
    );
  };
  return { fetch, sent };
}

/** The relay mounted as docs/relay.md shows, in an app with routes of its own. */
function mounted(options: RelayOptions): Hono {
  const app = new Hono();
  app.get("/", (c) => c.text("my app"));
  app.route("/", createRelay(options));
  return app;
}

const list = (...ids: string[]) => () =>
  Response.json({ object: "list", data: ids.map((id) => ({ id, object: "model" })) });

async function modelIds(app: Hono): Promise<string[]> {
  const response = await app.request("/v1/models");
  expect(response.status).toBe(200);
  const body = await response.json() as { object: string; data: Array<{ id: string }> };
  expect(body.object).toBe("list");
  return body.data.map((model) => model.id);
}

afterEach(() => vi.restoreAllMocks());

describe("without resumable storage", () => {
  const chat = (app: Hono, headers: Record<string, string>, stream = true) =>
    app.request("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ model: "m", stream, messages: [{ role: "user", content: "Hi" }] }),
    });

  test("a streaming request with x-stopstream-resumable: true is a 400, and no upstream request", async () => {
    const up = upstream();
    const app = mounted({ upstreams: [{ baseURL: "https://up.test/v1" }], fetch: up.fetch });
    const response = await chat(app, { "x-stopstream-resumable": "true" });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message: expect.stringContaining("keeps no resumable streams"),
        type: "invalid_request_error",
        param: null,
        code: "resumable_unavailable",
      },
    });
    expect(up.sent).toEqual([]);
  });

  test("without the header, or with stream: false (as on Workers), the answer is as ever", async () => {
    const up = upstream();
    const app = mounted({ upstreams: [{ baseURL: "https://up.test/v1" }], fetch: up.fetch });
    const streamed = await chat(app, {});
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain("data: [DONE]");
    const whole = await chat(app, { "x-stopstream-resumable": "true" }, false);
    expect(whole.status).toBe(200);
    expect(((await whole.json()) as { object: string }).object).toBe("chat.completion");
    expect(up.sent).toHaveLength(2);
  });

  test("/v1/streams/{id} and its cancel are a 404 in OpenAI's shape, not the app's plain text", async () => {
    const app = mounted({ upstreams: [{ baseURL: "https://up.test/v1" }], keys: ["k"] });
    const auth = { authorization: "Bearer k" };
    const id = "0123456789abcdef0123456789abcdef";
    for (
      const [path, method] of [
        [`/v1/streams/${id}`, "GET"],
        [`/v1/streams/${id}/cancel`, "POST"],
      ] as const
    ) {
      const response = await app.request(path, { method, headers: auth });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      const body = await response.json() as { error: { code: string; message: string } };
      expect(body.error.code).toBe("stream_not_found");
      expect(body.error.message).toContain("keeps no resumable streams");
    }
    // Still behind the relay's keys.
    expect((await app.request(`/v1/streams/${id}`)).status).toBe(401);
    // The app's own routes are its own.
    expect(await (await app.request("/")).text()).toBe("my app");
  });
});

describe("GET /v1/models", () => {
  test("lists the upstreams' models, and asks an upstream without one for its own list", async () => {
    const up = upstream({
      "https://openai.test/v1": list("gpt-4o-mini", "gpt-4o"),
      "https://anthropic.test/v1": list("claude-sonnet-4-5", "gpt-4o"),
    });
    const app = mounted({
      upstreams: [
        { baseURL: "https://openai.test/v1", apiKey: "sk-openai" },
        { baseURL: "https://fixed.test/v1", model: "fixed-model" },
        { baseURL: "https://anthropic.test/v1", apiKey: "sk-ant", protocol: "anthropic-messages" },
      ],
      fetch: up.fetch,
    });
    expect(await modelIds(app)).toEqual([
      "gpt-4o-mini",
      "gpt-4o",
      "fixed-model",
      "claude-sonnet-4-5",
    ]);
    // Each with its protocol's own authentication; a redirect is not followed with the key.
    const [openai, anthropic] = up.sent;
    expect(up.sent).toHaveLength(2);
    expect(openai!.url).toBe("https://openai.test/v1/models");
    expect(openai!.headers.get("authorization")).toBe("Bearer sk-openai");
    expect(anthropic!.url).toBe("https://anthropic.test/v1/models?limit=1000");
    expect(anthropic!.headers.get("x-api-key")).toBe("sk-ant");
    expect(anthropic!.headers.get("anthropic-version")).toBe("2023-06-01");
    for (const request of up.sent) expect(request.redirect).toBe("manual");
  });

  test("with the `models` option, that list and no upstream request", async () => {
    const up = upstream({ "https://openai.test/v1": list("gpt-4o") });
    const app = mounted({
      upstreams: [{ baseURL: "https://openai.test/v1" }],
      models: ["mine"],
      fetch: up.fetch,
    });
    expect(await modelIds(app)).toEqual(["mine"]);
    expect(up.sent).toEqual([]);
  });

  test("an upstream whose list fails is left out and logged, never with its URL or answer", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const up = upstream({
      "https://down.test/v1": () => new Response("secret internal page", { status: 503 }),
    });
    const app = mounted({
      upstreams: [
        { baseURL: "https://down.test/v1", apiKey: "sk-down" },
        { baseURL: "https://fixed.test/v1", model: "fixed-model" },
      ],
      fetch: up.fetch,
    });
    expect(await modelIds(app)).toEqual(["fixed-model"]);
    expect(warn).toHaveBeenCalledTimes(1);
    const logged = String(warn.mock.calls[0]?.[0]);
    expect(logged).toContain("503");
    expect(logged).not.toMatch(/down\.test|secret|sk-down/);
  });

  test("when nothing can be listed, a 502 in OpenAI's shape, not an empty list", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const up = upstream({
      "https://up.test/v1": () => new Response(null, { status: 302, headers: { location: "/x" } }),
    });
    const app = mounted({ upstreams: [{ baseURL: "https://up.test/v1" }], fetch: up.fetch });
    const response = await app.request("/v1/models");
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      "models_unavailable",
    );
    expect(up.sent).toHaveLength(1);
  });
});
