/**
 * Redirects never carry credentials to another origin: stopstream follows same-origin redirects
 * itself (up to 5, same method, headers and body) and refuses the rest with a RedirectError that
 * names the target origin, without a retry or a fallback. Loopback servers, because what
 * matters is what reaches a socket (MSW cannot show it).
 */

import { afterEach, describe, expect, test } from "vitest";
import { isRedirectError, RedirectError, streamChat } from "../../src/index.ts";
import { fetchFollowing } from "../../src/client/redirects.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { chunk, DONE, sse } from "../support/sse.ts";

const KEY = "sk-ant-api03-redirect-test-key-000";
const servers: NodeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: (request: Request) => Response | Promise<Response>) {
  const server = await startNodeServer(async (request) => await handler(request));
  servers.push(server);
  return server;
}

const redirect = (status: number, location: string) => () =>
  new Response(null, { status, headers: { location } });
const answer = () =>
  new Response(sse(chunk({ content: "ok" })) + sse(chunk({}, "stop")) + DONE, {
    headers: { "content-type": "text/event-stream" },
  });

/** An Anthropic-style call (the key travels in x-api-key, which fetch never strips). */
function call(baseURL: string, extra: Record<string, unknown> = {}) {
  return streamChat({
    baseURL,
    apiKey: KEY,
    headers: { "x-team": "blue" },
    body: { model: "m", messages: [{ role: "user", content: "hi" }] },
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  });
}

describe("redirects", () => {
  test("a 307 to another origin: RedirectError naming it, nothing sent there, no retry, no fallback", async () => {
    const other = await serve(answer);
    const fallback = await serve(answer);
    const first = await serve(redirect(307, `${other.url}/v1/messages`));
    const error = await call(`${first.url}/v1`, {
      protocol: "anthropic-messages",
      fallbacks: [{ baseURL: `${fallback.url}/v1`, protocol: "openai-chat" }],
    }).result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect(isRedirectError(error)).toBe(true);
    const redirectError = error as RedirectError;
    expect(redirectError.name).toBe("RedirectError");
    expect(redirectError.reason).toBe("cross-origin");
    expect(redirectError.status).toBe(307);
    expect(redirectError.targetOrigin).toBe(other.url);
    expect(redirectError.message).toContain(other.url);
    expect(redirectError.attempts).toBe(1);
    expect(first.requests()).toHaveLength(1);
    expect(first.requests()[0]!.headers.get("x-api-key")).toBe(KEY);
    expect(other.requests()).toHaveLength(0);
    expect(fallback.requests()).toHaveLength(0);
  });

  test("same-origin redirects (301, 302, 307, 308) are followed with the same method, headers and body", async () => {
    const bodies: string[] = [];
    const server = await serve(async (request) => {
      bodies.push(await request.text());
      const hop = Number(new URL(request.url).pathname.split("/")[1]);
      const statuses = [301, 302, 307, 308];
      return hop < statuses.length
        ? redirect(statuses[hop]!, `/${hop + 1}/v1/chat/completions`)()
        : answer();
    });
    const result = await call(`${server.url}/0/v1`).result;
    expect(result.content).toBe("ok");
    const requests = server.requests();
    expect(requests.map((r) => r.path)).toEqual(
      [0, 1, 2, 3, 4].map((n) => `/${n}/v1/chat/completions`),
    );
    for (const request of requests) {
      expect(request.method).toBe("POST");
      expect(request.headers.get("authorization")).toBe(`Bearer ${KEY}`);
      expect(request.headers.get("x-team")).toBe("blue");
      expect(request.headers.get("content-type")).toBe("application/json");
    }
    expect(new Set(bodies).size).toBe(1);
    expect(JSON.parse(bodies[0]!)).toMatchObject({ model: "m", stream: true });
  });

  test("a 303 See Other on the POST is a RedirectError (see-other): nothing is sent again, as POST or GET", async () => {
    const server = await serve((request) =>
      new URL(request.url).pathname === "/v1/chat/completions"
        ? redirect(303, "/v1/result")()
        : answer()
    );
    const error = await call(`${server.url}/v1`).result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({ reason: "see-other", status: 303, targetOrigin: server.url });
    expect((error as RedirectError).message).toMatch(/with a 303, which asks for a GET instead/);
    expect((error as RedirectError).attempts).toBe(1);
    expect(server.requests().map((r) => `${r.method} ${r.path}`)).toEqual([
      "POST /v1/chat/completions",
    ]);
  });

  test("a 303 on a GET (a resume) is followed, as a GET", async () => {
    const server = await serve((request) =>
      new URL(request.url).pathname === "/a" ? redirect(303, "/b")() : answer()
    );
    const response = await fetchFollowing(fetch, `${server.url}/a`, { method: "GET" });
    expect(response.status).toBe(200);
    await response.body?.cancel();
    expect(server.requests().map((r) => `${r.method} ${r.path}`)).toEqual(["GET /a", "GET /b"]);
  });

  test("a same-origin redirect to a URL with credentials is a RedirectError (credentials), not a retried network error", async () => {
    const server = await serve((request) =>
      redirect(307, `http://user:pw@127.0.0.1:${new URL(request.url).port}/v1/other`)()
    );
    const error = await call(`${server.url}/v1`).result.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedirectError);
    expect(error).toMatchObject({ reason: "credentials", status: 307, targetOrigin: server.url });
    expect((error as RedirectError).attempts).toBe(1);
    expect(server.requests()).toHaveLength(1);
  });

  test("a sixth redirect is a RedirectError (too-many) after six requests, not retried", async () => {
    const server = await serve((request) => {
      const hop = Number(new URL(request.url).pathname.split("/")[1]);
      return redirect(307, `/${hop + 1}/v1/chat/completions`)();
    });
    const error = await call(`${server.url}/0/v1`).result.catch((e: unknown) => e);
    expect((error as RedirectError).reason).toBe("too-many");
    expect((error as RedirectError).targetOrigin).toBe(server.url);
    expect((error as RedirectError).attempts).toBe(1);
    expect(server.requests()).toHaveLength(6);
  });

  test("a redirect loop is a RedirectError (loop) at once, not a retried network error", async () => {
    const server = await serve((request) =>
      redirect(
        302,
        new URL(request.url).pathname.startsWith("/a/")
          ? "/b/v1/chat/completions"
          : "/a/v1/chat/completions",
      )()
    );
    const error = await call(`${server.url}/a/v1`).result.catch((e: unknown) => e);
    expect((error as RedirectError).reason).toBe("loop");
    expect(server.requests().map((r) => r.path)).toEqual([
      "/a/v1/chat/completions",
      "/b/v1/chat/completions",
    ]);
  });

  test("a stop's cancel request redirected to another origin sends nothing there", async () => {
    // A resumable relay stream: a stop cancels it with POST {baseURL}/streams/{id}/cancel,
    // carrying the key (here in Azure's `api-key`, which fetch would carry across origins).
    const other = await serve(answer);
    const relay = await serve((request) => {
      const { pathname } = new URL(request.url);
      if (pathname.endsWith("/cancel")) return redirect(307, `${other.url}${pathname}`)();
      const open = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(`id: 1\n${sse(chunk({ content: "hi" }))}`));
        },
      });
      return new Response(open, {
        headers: { "content-type": "text/event-stream", "x-stopstream-stream-id": "strm_1" },
      });
    });
    const cancels: Array<Promise<Response>> = [];
    const recording = (input: RequestInfo | URL, init?: RequestInit) => {
      const sent = fetch(input, init);
      if (String(input).endsWith("/cancel")) cancels.push(sent);
      return sent;
    };
    const stream = call(`${relay.url}/v1`, { headers: { "api-key": KEY }, fetch: recording });
    for await (const event of stream) if (event.type === "text") break;
    await relay.request(2);
    // The cancel is sent unawaited: its 307 is in hand once the fetch that got it has settled,
    // and by then a followed redirect would have reached the other origin.
    expect(cancels).toHaveLength(1);
    expect((await cancels[0]!).status).toBe(307);
    expect(relay.requests()[1]).toMatchObject({
      method: "POST",
      path: "/v1/streams/strm_1/cancel",
    });
    expect(relay.requests()[1]!.headers.get("api-key")).toBe(KEY);
    expect(other.requests()).toHaveLength(0);
    expect(cancels).toHaveLength(1);
  });

  test("a 3xx without a Location header is an APIStatusError like any other status", async () => {
    const server = await serve(() => new Response("moved", { status: 302 }));
    const error = await call(`${server.url}/v1`, { maxRetries: 0 }).result.catch((e: unknown) => e);
    expect((error as Error).name).toBe("APIStatusError");
    expect(server.requests()).toHaveLength(1);
  });
});

describe("a stop between hops", () => {
  test("no further hop is made, even by a fetch that ignores its signal", async () => {
    const urls: string[] = [];
    const controller = new AbortController();
    const stop = new Error("stopped");
    const fetch = (url: string | URL | Request): Promise<Response> => {
      urls.push(String(url));
      controller.abort(stop); // the stop comes while this hop is on its way
      return Promise.resolve(redirect(307, "/v2/chat/completions")());
    };
    const error = await fetchFollowing(
      fetch as typeof globalThis.fetch,
      "https://api.test/v1/chat/completions",
      {
        method: "POST",
        signal: controller.signal,
      },
    ).catch((e: unknown) => e);
    expect(error).toBe(stop);
    expect(urls).toEqual(["https://api.test/v1/chat/completions"]);
  });
});
