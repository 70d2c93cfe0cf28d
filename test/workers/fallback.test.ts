import { describe, expect, it } from "vitest";
import { createRelay } from "../../src/relay/app.ts";
import { relayOptionsFromEnv } from "../../src/relay/env.ts";
import {
  answer,
  chatBody,
  contentOf,
  fakeUpstream,
  parseSSE,
  postChat,
  sse,
  sseResponse,
} from "./helpers.ts";

describe("fallbacks", () => {
  it("falls back to the second upstream when the first has used up its retries", async () => {
    const upstream = fakeUpstream((request) =>
      request.url.startsWith("https://primary.test/")
        ? Response.json({ error: { message: "overloaded", type: "server_error" } }, { status: 503 })
        : sseResponse([
          sse({
            choices: [{ index: 0, delta: { content: "from the fallback" }, finish_reason: null }],
          }),
          sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
          "data: [DONE]\n\n",
        ])
    );
    const app = createRelay({
      upstreams: [
        {
          baseURL: "https://primary.test/v1",
          apiKey: "sk-primary-0123456789",
          protocol: "anthropic-messages",
          model: "claude-x",
        },
        {
          baseURL: "https://fallback.test/v1",
          apiKey: "sk-fallback-0123456789",
          protocol: "openai-chat",
          model: "gpt-y",
        },
      ],
      maxRetries: 1,
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
      fetch: upstream.fetch,
    });
    const response = await postChat(
      app,
      chatBody({
        stream: true,
        messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }],
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("x-stopstream-upstream")).toBe("1");
    expect(response.headers.get("x-stopstream-attempts")).toBe("3");
    const body = parseSSE(await response.text());
    expect(contentOf(body)).toBe("from the fallback");
    expect(body.done).toBe(true);
    expect(upstream.seen.map((r) => new URL(r.url).host)).toEqual([
      "primary.test",
      "primary.test",
      "fallback.test",
    ]);
    const fallback = upstream.seen[2]!;
    expect(fallback.headers.get("authorization")).toBe("Bearer sk-fallback-0123456789");
    expect(fallback.headers.get("x-api-key")).toBeNull();
    // The fallback gets an OpenAI body: nothing of the primary's Anthropic translation.
    expect(fallback.body.model).toBe("gpt-y");
    expect(fallback.body).not.toHaveProperty("system");
    expect(fallback.body).not.toHaveProperty("max_tokens");
    expect(fallback.body.messages).toEqual([{ role: "system", content: "Be brief." }, {
      role: "user",
      content: "hi",
    }]);
  });

  it("upstream keys never appear in errors passed to the caller", async () => {
    const key = "sk-secret-abcdefghijkl";
    const upstream = fakeUpstream(() =>
      Response.json({
        error: {
          message: `Organization of key ${key} has no access to this model`,
          type: "invalid_request_error",
          code: "model_not_found",
        },
      }, { status: 400 })
    );
    const app = createRelay({
      upstreams: [{ baseURL: "https://up.test/v1", apiKey: key }],
      fetch: upstream.fetch,
    });
    const response = await postChat(app, chatBody({ stream: true }));
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).toContain("Organization of key [redacted] has no access");
    expect(text).not.toContain(key);
    expect(upstream.seen).toHaveLength(1);
  });

  it("a key the upstream echoes masked (sk-…****…abcd) is not passed on either", async () => {
    const upstream = fakeUpstream(() =>
      Response.json({
        error: {
          message: "Key sk-proj-************************wxyz may not use this model. See docs.",
          type: "invalid_request_error",
          code: "model_not_allowed",
        },
      }, { status: 400 })
    );
    const app = createRelay({
      upstreams: [{ baseURL: "https://up.test/v1", apiKey: "sk-proj-0123456789wxyz" }],
      fetch: upstream.fetch,
    });
    const response = await postChat(app, chatBody({ stream: false }));
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string; code: string } };
    expect(error.message).toBe("Key [redacted] may not use this model. See docs.");
    expect(error.code).toBe("model_not_allowed");
    expect(upstream.seen).toHaveLength(1);
  });

  it("an empty apiKey (a local server) sends no Authorization header at all", async () => {
    const upstream = fakeUpstream(() =>
      sseResponse([
        sse({ choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] }),
        "data: [DONE]\n\n",
      ])
    );
    const app = createRelay({
      upstreams: [{ baseURL: "http://127.0.0.1:11434/v1", apiKey: "", protocol: "openai-chat" }],
      fetch: upstream.fetch,
    });
    const response = await postChat(app, chatBody({ stream: false }));
    expect(response.status).toBe(200);
    expect(upstream.seen).toHaveLength(1);
    expect(upstream.seen[0]!.headers.get("authorization")).toBeNull();
  });

  it("a real upstream never receives the caller's x-demo-fault or other caller headers", async () => {
    const upstream = fakeUpstream(() =>
      sseResponse([
        sse({ choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] }),
        "data: [DONE]\n\n",
      ])
    );
    const app = createRelay({
      upstreams: [{ baseURL: "https://up.test/v1" }],
      fetch: upstream.fetch,
    });
    await (await postChat(app, chatBody({ stream: true }), {
      headers: {
        "x-demo-fault": "status=503",
        "x-forwarded-for": "1.2.3.4",
        connection: "keep-alive",
        authorization: "Bearer caller",
        cookie: "session=caller",
        "proxy-authorization": "Basic caller",
        te: "trailers",
      },
    })).text();
    const headers = [...upstream.seen[0]!.headers.keys()];
    expect(headers).not.toContain("x-demo-fault");
    expect(headers).not.toContain("x-demo-attempt");
    expect(headers).not.toContain("x-forwarded-for");
    expect(headers).not.toContain("authorization");
    expect(headers).not.toContain("cookie");
    expect(headers).not.toContain("proxy-authorization");
    expect(headers).not.toContain("te");
    expect(headers).not.toContain("connection");
    expect(upstream.seen).toHaveLength(1);
  });

  it("the caller cannot choose the upstream URL: body fields, host headers, query and upstream index are ignored", async () => {
    const upstream = fakeUpstream(() => answer("ok"));
    const app = createRelay({
      upstreams: [{ baseURL: "https://up.test/v1" }, { baseURL: "https://fallback.test/v1" }],
      fetch: upstream.fetch,
    });
    const evil = "https://evil.test/v1";
    const query = new URLSearchParams({ baseURL: evil, url: evil, upstream: "1" });
    const response = await app.request(`http://relay.test/v1/chat/completions?${query}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        host: "evil.test",
        "x-forwarded-host": "evil.test",
        "x-stopstream-upstream": "1",
        "x-upstream-url": evil,
      },
      body: JSON.stringify(
        chatBody({ stream: true, baseURL: evil, base_url: evil, url: evil, api_base: evil }),
      ),
    });
    expect(await response.text()).toContain("data: [DONE]");
    expect(upstream.seen.map((seen) => seen.url)).toEqual(["https://up.test/v1/chat/completions"]);
    expect(response.headers.get("x-stopstream-upstream")).toBe("0");
  });

  it("FALLBACKS entries without apiKeySecret inherit the key only on the primary's exact baseURL", async () => {
    const gateway = "https://gateway.test/v1/acct/gw";
    const upstream = fakeUpstream((request, n) =>
      n < 3 ? Response.json({ error: { message: "overloaded" } }, { status: 503 }) : sseResponse(
        request.url.includes("/anthropic/")
          ? ['event: message_stop\ndata: {"type":"message_stop"}\n\n']
          : [
            sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
            "data: [DONE]\n\n",
          ],
      )
    );
    const options = relayOptionsFromEnv({
      UPSTREAM_BASE_URL: `${gateway}/openai`,
      UPSTREAM_API_KEY: "sk-openai-0123456789",
      FALLBACKS: JSON.stringify([
        { baseURL: `${gateway}/openai/`, model: "gpt-mini" },
        { baseURL: `${gateway}/anthropic`, protocol: "anthropic-messages", model: "claude-x" },
      ]),
    });
    const app = createRelay({ ...options, maxRetries: 0, fetch: upstream.fetch });
    const response = await postChat(app, chatBody({ stream: false }));
    expect(response.status).toBe(200);
    expect(upstream.seen.map((r) => new URL(r.url).pathname)).toEqual([
      "/v1/acct/gw/openai/chat/completions",
      "/v1/acct/gw/openai/chat/completions",
      "/v1/acct/gw/anthropic/messages",
    ]);
    // The same baseURL (a trailing slash aside): the same provider, the same key.
    expect(upstream.seen[1]!.headers.get("authorization")).toBe("Bearer sk-openai-0123456789");
    // Another route of the same origin: another provider, no key at all.
    const anthropic = upstream.seen[2]!.headers;
    expect(anthropic.get("x-api-key")).toBeNull();
    expect(anthropic.get("authorization")).toBeNull();
  });
});
