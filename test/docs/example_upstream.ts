/**
 * The model provider the docs' examples talk to: the demo model for OpenAI-compatible chat
 * completions, and recorded real streams for Anthropic Messages and the OpenAI Responses API
 * (which the demo model does not speak). Every provider base URL in an example
 * (`https://api.openai.com/v1`, …) is replaced by `/x/<example id>/v1` on this server, so each
 * example's requests are counted apart and a test can check that its example really called it.
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { createDemoUpstream } from "../../src/apps/demo/upstream.ts";

/** What one example's requests did. */
export interface ExampleTraffic {
  /** Requests received. */
  requests: number;
  /** Response bodies sent to their end. */
  completed: number;
  /** The answer text of the last chat completion streamed to its end. */
  text: string;
}

/**
 * The upstream's fetch handler and its per-example counters.
 *
 * @example
 * ```ts
 * const upstream = createExampleUpstream();
 * const server = await startNodeServer(upstream.handler);
 * upstream.traffic("readme-40"); // { requests: 1, completed: 1 }
 * ```
 */
export interface ExampleUpstream {
  handler: (request: Request) => Promise<Response>;
  traffic(id: string): ExampleTraffic;
  /** Resolves once a response to `id` has been sent to its end. */
  completed(id: string): Promise<ExampleTraffic>;
  /** Serves `html` at `GET /page/<id>` (a loopback page, like one served next to the relay). */
  servePage(id: string, html: string): string;
}

const FIXTURES = new URL("../unit/fixtures/", import.meta.url);
/**
 * Recorded streams (their sources are noted in test/unit/protocol_replay.ts): a plain answer,
 * and the one that shows what the example is about when the request asks for it.
 */
const RECORDED = {
  "messages": { plain: "anthropic_text.sse", tools: "anthropic_tools.sse" },
  "responses": {
    plain: "responses_text.sse",
    reasoning: "responses_reasoning.sse",
    tools: "responses_tools.sse",
  },
} as const;

/** A request with OpenAI's hosted tool search: it runs the search, then calls a found tool. */
const HOSTED_TOOL_SEARCH = "../../recorded/responses/tool_search_server.sse";

function hostsToolSearch(body: Record<string, unknown>): boolean {
  return JSON.stringify(body.tools ?? []).includes('"type":"tool_search"');
}

/** A request that sends tool results back: the model answers now (an agent's second turn). */
function carriesToolResults(body: Record<string, unknown>): boolean {
  const turns = [
    ...(Array.isArray(body.messages) ? body.messages : []),
    ...(Array.isArray(body.input) ? body.input : []),
  ];
  return JSON.stringify(turns).match(/"type":"(tool_result|function_call_output)"/) !== null;
}

const CORS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "*",
  "access-control-allow-methods": "POST, GET, OPTIONS",
  "access-control-expose-headers": "retry-after, retry-after-ms, content-type",
};

/** `/x/<id>/v1/<endpoint>` */
const ROUTE = /^\/x\/([a-z0-9-]+)\/v1\/(chat\/completions|messages|responses)$/;

/** Builds the upstream; the demo model answers quickly (1 ms per word). */
export function createExampleUpstream(): ExampleUpstream {
  const demo = createDemoUpstream({ wordDelayMs: 1 });
  const counts = new Map<string, ExampleTraffic>();
  const waiting = new Map<string, Array<() => void>>();
  const traffic = (id: string): ExampleTraffic => {
    let seen = counts.get(id);
    if (seen === undefined) counts.set(id, seen = { requests: 0, completed: 0, text: "" });
    return seen;
  };
  const completed = (id: string): Promise<ExampleTraffic> => {
    const seen = traffic(id);
    if (seen.completed > 0) return Promise.resolve(seen);
    return new Promise((resolve) => {
      waiting.set(id, [...(waiting.get(id) ?? []), () => resolve(seen)]);
    });
  };

  const pages = new Map<string, string>();
  const servePage = (id: string, html: string): string => {
    pages.set(id, `<!doctype html>\n<meta charset="utf-8">\n${html}`);
    return `/page/${id}`;
  };

  const handler = async (request: Request): Promise<Response> => {
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: CORS });
    const page = pages.get(/^\/page\/([a-z0-9-]+)$/.exec(new URL(request.url).pathname)?.[1] ?? "");
    if (page !== undefined) {
      return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
    }
    const route = ROUTE.exec(new URL(request.url).pathname);
    if (route === null) return json(404, { error: { message: `no example route ${request.url}` } });
    const [, id, endpoint] = route as unknown as [string, string, string];
    const seen = traffic(id);
    seen.requests++;
    let response: Response;
    if (endpoint === "chat/completions") {
      response = await demo(request);
    } else {
      const body = await request.json().catch(() => ({})) as Record<string, unknown>;
      if (body.stream !== true) {
        return json(400, { error: { message: "the examples' upstream only streams" } });
      }
      const files: Record<string, string> = RECORDED[endpoint as keyof typeof RECORDED];
      const asks = body.tools !== undefined && !carriesToolResults(body);
      const file = (asks && hostsToolSearch(body) ? HOSTED_TOOL_SEARCH : undefined) ??
        (asks ? files.tools : undefined) ??
        (body.reasoning !== undefined ? files.reasoning : undefined) ?? files.plain as string;
      response = new Response(readFileSync(new URL(file, FIXTURES), "utf8"), {
        headers: { "content-type": "text/event-stream; charset=utf-8" },
      });
    }
    const headers = new Headers(response.headers);
    for (const [name, value] of Object.entries(CORS)) headers.set(name, value);
    if (response.body === null) return new Response(null, { status: response.status, headers });
    const decoder = new TextDecoder();
    let sent = "";
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          sent += decoder.decode(chunk, { stream: true });
          controller.enqueue(chunk);
        },
        flush() {
          if (endpoint === "chat/completions") seen.text = chatText(sent);
          seen.completed++;
          for (const wake of waiting.get(id)?.splice(0) ?? []) wake();
        },
      }),
    );
    return new Response(counted, { status: response.status, headers });
  };
  return { handler, traffic, completed, servePage };
}

/** The text of a chat completions stream: its `delta.content` pieces, in order. */
export function chatText(sse: string): string {
  let text = "";
  for (const [, data] of sse.matchAll(/^data: (\{.*\})$/gm)) {
    const chunk = JSON.parse(data as string) as {
      choices?: Array<{ delta?: { content?: string | null } }>;
    };
    text += chunk.choices?.[0]?.delta?.content ?? "";
  }
  return text;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...CORS },
  });
}

/**
 * Points an example at the loopback upstream: every provider base URL it names becomes
 * `<origin>/x/<id>/v1`, and the relay's address (`http://127.0.0.1:8787`, where `npm start`
 * serves it) becomes the test relay's. What the reader sees stays the real URLs.
 */
export function substituteURLs(
  source: string,
  { upstream, relay, id }: { upstream: string; relay: string; id: string },
): string {
  return source
    .replace(PROVIDER_BASE_URL, `${upstream}/x/${id}/v1`)
    .replaceAll("http://127.0.0.1:8787", relay);
}

/** The providers the docs name, with the version or beta path of their base URL. */
export const PROVIDER_BASE_URL: RegExp =
  /https:\/\/(?:api\.openai\.com|api\.anthropic\.com|api\.deepseek\.com|openrouter\.ai\/api|api\.groq\.com\/openai|relay\.example\.com)\/(?:v1|beta)\b/g;
