import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDemoRelay } from "../../src/apps/demo/relay.ts";
import { createRelay } from "../../src/relay/app.ts";
import { createWorkerApp } from "../../src/apps/worker/worker.ts";
import { chatBody, fakeUpstream, postChat, sse, sseResponse } from "./helpers.ts";

const worker = exports.default;

async function errorOf(
  response: Response,
): Promise<{ message: string; type: string; code: unknown }> {
  const json = (await response.json()) as {
    error: { message: string; type: string; code: unknown };
  };
  expect(json.error).toEqual(
    expect.objectContaining({ message: expect.any(String), type: expect.any(String) }),
  );
  return json.error;
}

describe("routes", () => {
  it("GET /healthz answers ok without a key", async () => {
    const app = createDemoRelay({ keys: ["k1"] });
    const response = await app.request("/healthz");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("GET /v1/models lists the configured upstream models, the demo by default", async () => {
    const demo = await (await worker.fetch("http://relay.test/v1/models")).json();
    expect(demo).toEqual({
      object: "list",
      data: [expect.objectContaining({ id: "demo", object: "model" })],
    });
    const app = createRelay({
      upstreams: [
        { baseURL: "https://a.test/v1", protocol: "openai-chat", model: "gpt-x" },
        { baseURL: "https://b.test/v1", protocol: "anthropic-messages", model: "claude-y" },
      ],
    });
    const listed = (await (await app.request("/v1/models")).json()) as {
      data: Array<{ id: string }>;
    };
    expect(listed.data.map((m) => m.id)).toEqual(["gpt-x", "claude-y"]);
  });

  it("unknown routes are 404 and wrong methods 405, in OpenAI's error shape", async () => {
    const missing = await worker.fetch("http://relay.test/v1/embeddings", { method: "POST" });
    expect(missing.status).toBe(404);
    expect((await errorOf(missing)).code).toBe("unknown_route");
    const wrong = await worker.fetch("http://relay.test/v1/chat/completions");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect((await errorOf(wrong)).code).toBe("method_not_allowed");
    const models = await worker.fetch("http://relay.test/v1/models", { method: "DELETE" });
    expect(models.status).toBe(405);
  });

  it("serves the playground page and the browser build of stopstream it imports", async () => {
    const page = await worker.fetch("http://relay.test/");
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain('from "./stopstream.js"');
    expect(html).toContain('id="stop"');
    // Its own inline script and style run (their hashes), nothing else does, and no site frames it.
    const policy = page.headers.get("content-security-policy")!;
    const hash = async (text: string) =>
      `'sha256-${
        btoa(String.fromCharCode(
          ...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))),
        ))
      }'`;
    const inline = (tag: string) =>
      new RegExp(`<${tag}[^>]*>([\\s\\S]*?)</${tag}>`).exec(html)![1]!;
    expect(policy).toContain(`script-src 'self' ${await hash(inline("script"))};`);
    expect(policy).toContain(`style-src ${await hash(inline("style"))};`);
    expect(policy).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    const client = await worker.fetch("http://relay.test/stopstream.js");
    expect(client.headers.get("content-type")).toContain("javascript");
    // A page elsewhere can import it (docs/runtimes.md): module scripts are fetched with CORS.
    expect(client.headers.get("access-control-allow-origin")).toBe("*");
    expect(await client.text()).toMatch(/export\s*\{[^}]*streamChat/);
  });

  it("CORS: the Worker answers preflights (before auth) and exposes the relay's headers", async () => {
    const app = createWorkerApp({ RELAY_KEYS: "k1" });
    const preflight = await app.request("/v1/chat/completions", {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        // The openai SDK in a browser sends its own x-stainless-* headers.
        "access-control-request-headers":
          "authorization, content-type, x-demo-fault, x-stainless-os, x-stainless-retry-count",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    const allowed = preflight.headers.get("access-control-allow-headers")?.split(",") ?? [];
    expect(allowed).toEqual(expect.arrayContaining(["authorization", "x-demo-fault"]));
    expect(allowed).toEqual(expect.arrayContaining(["x-stainless-os", "x-stainless-retry-count"]));
    const models = await app.request("/v1/models", {
      headers: { origin: "https://app.example", authorization: "Bearer k1" },
    });
    expect(models.headers.get("access-control-expose-headers")).toContain("x-stopstream-attempts");
    // Without the option, createRelay sends no CORS headers at all.
    const plain = await createDemoRelay().request("/healthz", {
      headers: { origin: "https://app.example" },
    });
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("the demo upstream is reachable over HTTP at /demo/v1/chat/completions", async () => {
    const response = await worker.fetch("http://relay.test/demo/v1/chat/completions", {
      method: "POST",
      headers: { "x-demo-fault": "attempt1=status:503" },
      body: JSON.stringify(chatBody()),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get("x-demo-attempt")).toBe("1");
  });
});

describe("validation", () => {
  const app = createDemoRelay();

  it.each([
    ["not JSON", "{nope"],
    ["a JSON array", "[]"],
    ["an object without messages", '{"model":"demo"}'],
    ["messages that are not an array", '{"messages":"hi"}'],
  ])("a body that is %s is a 400", async (_name, body) => {
    const response = await app.request("/v1/chat/completions", { method: "POST", body });
    expect(response.status).toBe(400);
    expect((await errorOf(response)).type).toBe("invalid_request_error");
  });

  it("a body above maxBodyBytes is a 413, declared or streamed, and nothing goes upstream", async () => {
    const upstream = fakeUpstream(() => sseResponse([]));
    const small = createRelay({
      maxBodyBytes: 64,
      upstreams: [{ baseURL: "https://up.test/v1" }],
      fetch: upstream.fetch,
    });
    const big = JSON.stringify(chatBody({ padding: "x".repeat(100) }));
    const declared = await small.request("/v1/chat/completions", { method: "POST", body: big });
    expect(declared.status).toBe(413);
    const streamed = await small.request("/v1/chat/completions", {
      method: "POST",
      body: new Blob([big]).stream(),
      // @ts-expect-error: undici-style option, needed by some runtimes for stream bodies
      duplex: "half",
    });
    expect(streamed.status).toBe(413);
    expect((await errorOf(streamed)).code).toBe("request_too_large");
    expect(upstream.seen).toHaveLength(0);
  });

  it("the demo's own route has the same limit (it is as public as the relay)", async () => {
    const demo = createDemoRelay({ maxBodyBytes: 64 });
    const big = JSON.stringify(chatBody({ padding: "x".repeat(100) }));
    const refused = await demo.request("/demo/v1/chat/completions", { method: "POST", body: big });
    expect(refused.status).toBe(413);
    expect((await errorOf(refused)).code).toBe("request_too_large");
    const small = JSON.stringify({ messages: [{ role: "user", content: "hi" }] });
    const served = await createDemoRelay({ maxBodyBytes: 1024 }).request(
      "/demo/v1/chat/completions",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: small,
      },
    );
    expect(served.status).toBe(200);
    expect((await served.json()).choices[0].message.content).toContain("hi");
  });
});

describe("auth", () => {
  const upstream = fakeUpstream(() =>
    sseResponse([
      sse({ choices: [{ index: 0, delta: { content: "ok" }, finish_reason: "stop" }] }),
      "data: [DONE]\n\n",
    ])
  );
  const app = createRelay({
    keys: ["relay-key-1", "relay-key-2"],
    upstreams: [{ baseURL: "https://up.test/v1", apiKey: "sk-upstream-secret" }],
    fetch: upstream.fetch,
  });

  it("a missing or wrong key is a 401 and nothing goes upstream", async () => {
    const before = upstream.seen.length;
    const missing = await postChat(app, chatBody());
    expect(missing.status).toBe(401);
    expect((await errorOf(missing)).code).toBe("invalid_api_key");
    const wrong = await postChat(app, chatBody(), {
      headers: { authorization: "Bearer relay-key-3" },
    });
    expect(wrong.status).toBe(401);
    const models = await app.request("/v1/models");
    expect(models.status).toBe(401);
    expect(upstream.seen.length).toBe(before);
  });

  it("any configured key is accepted, and the caller's key is never sent upstream", async () => {
    const response = await postChat(app, chatBody({ stream: false }), {
      headers: { authorization: "Bearer relay-key-2", cookie: "session=1", "openai-beta": "x=1" },
    });
    expect(response.status).toBe(200);
    const seen = upstream.seen.at(-1)!;
    expect(seen.url).toBe("https://up.test/v1/chat/completions");
    expect(seen.headers.get("authorization")).toBe("Bearer sk-upstream-secret");
    expect(seen.headers.get("cookie")).toBeNull();
    expect(seen.headers.get("openai-beta")).toBe("x=1");
  });

  it("the Worker reads RELAY_KEYS (comma-separated)", async () => {
    const app = createWorkerApp({ RELAY_KEYS: "alpha, beta" });
    expect((await app.request("/v1/models")).status).toBe(401);
    const ok = await app.request("/v1/models", { headers: { authorization: "Bearer beta" } });
    expect(ok.status).toBe(200);
    // The playground itself is public; it asks for the key.
    expect((await app.request("/")).status).toBe(200);
  });

  it("with RELAY_KEYS set, the demo route needs a key too", async () => {
    const app = createWorkerApp({ RELAY_KEYS: "alpha" });
    const demo = (headers: Record<string, string>) =>
      app.request("/demo/v1/chat/completions", {
        method: "POST",
        headers,
        body: JSON.stringify(chatBody({ stream: false })),
      });
    const refused = await demo({});
    expect(refused.status).toBe(401);
    expect((await errorOf(refused)).code).toBe("invalid_api_key");
    expect((await demo({ authorization: "Bearer beta" })).status).toBe(401);
    expect((await demo({ authorization: "Bearer alpha" })).status).toBe(200);
    // Without keys the demo stays open, as the rest of the relay.
    expect(
      (await worker.fetch("http://relay.test/demo/v1/chat/completions", {
        method: "POST",
        body: JSON.stringify(chatBody({ stream: false })),
      })).status,
    ).toBe(200);
  });

  it("a FALLBACKS entry that holds a key instead of naming its secret is refused", async () => {
    const app = createWorkerApp({
      UPSTREAM_BASE_URL: "https://up.test/v1",
      FALLBACKS: JSON.stringify([{ baseURL: "https://b.test/v1", apiKey: "sk-leaked-key-123" }]),
    });
    const response = await app.request("/v1/models");
    expect(response.status).toBe(500);
    const error = await errorOf(response);
    expect(error.code).toBe("relay_misconfigured");
    expect(error.message).not.toContain("sk-leaked-key-123");
  });
});
