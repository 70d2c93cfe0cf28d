// A call whose `protocol` does not match the server: every real recording (test/recorded/, sources
// in SOURCES.md) read as each of the other two protocols, over a loopback socket. The answer must
// be a StreamProtocolError after one request that names the protocol the events are: never a
// result, never a "lost connection" retried with backoff, never the provider's error misread.
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ProtocolName, streamChat, type StreamProtocolError } from "../../src/index.ts";
import { createRelay } from "../../src/relay/app.ts";
import { type ReplayServer, startReplayServer } from "../support/replay_server.ts";

const ROOT = new URL("../recorded/", import.meta.url);
const DIRS: Record<string, ProtocolName> = {
  chat: "openai-chat",
  anthropic: "anthropic-messages",
  responses: "openai-responses",
};
const encoder = new TextEncoder();
const files = Object.keys(DIRS).flatMap((dir) =>
  readdirSync(new URL(`${dir}/`, ROOT)).filter((f) => f.endsWith(".sse")).map((f) => `${dir}/${f}`)
);
const bytesOf = new Map(files.map((name) => [name, encoder.encode(read(name))]));

function read(name: string): string {
  return readFileSync(new URL(name, ROOT), "utf8");
}

const BODY: Record<ProtocolName, Record<string, unknown>> = {
  "openai-chat": { model: "recorded", messages: [{ role: "user", content: "Hi" }] },
  "anthropic-messages": { model: "recorded", max_tokens: 64, messages: [] },
  "openai-responses": { model: "recorded", input: "Hi" },
};

let server: ReplayServer;
beforeAll(async () => {
  // /<dir>/<file>/<the protocol's path>
  server = await startReplayServer((_n, request) => {
    const [, dir, file] = request.path.split("/");
    return [bytesOf.get(`${dir}/${file}`)!];
  });
});
afterAll(() => server.close());

const cases = files.flatMap((name) => {
  const recorded = DIRS[name.split("/")[0]!]!;
  return Object.values(DIRS).filter((p) => p !== recorded).map((p) => [name, p, recorded] as const);
});

describe("a stream of another protocol than the call's", () => {
  test.each(cases)("%s read as %s", async (name, protocol, recorded) => {
    const before = server.requests.length;
    const stream = streamChat({
      baseURL: `${server.url}/${name}`,
      protocol,
      body: BODY[protocol],
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
    });
    const error: Error = await stream.result.then(
      (result) => new Error(`read as a result: ${JSON.stringify(result.content)}`),
      (rejected: Error) => rejected,
    );
    expect({ name: error.name, requests: server.requests.length - before }).toEqual({
      name: "StreamProtocolError",
      requests: 1,
    });
    expect(error.message).toContain(`set \`protocol: "${recorded}"\``);
    expect((error as StreamProtocolError).foundProtocol).toBe(recorded);
  });
});

test("the call's own protocol cut before its content is a lost connection, retried", async () => {
  const whole = read("anthropic/agent_2_answer.sse");
  const cut = encoder.encode(whole.slice(0, whole.indexOf("event: content_block_start")));
  expect(new TextDecoder().decode(cut)).toContain("message_start");
  const local = await startReplayServer(() => [cut]);
  try {
    const stream = streamChat({
      baseURL: local.url,
      protocol: "anthropic-messages",
      body: BODY["anthropic-messages"],
      maxRetries: 1,
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
    });
    const error: Error = await stream.result.then(() => new Error("resolved"), (e: Error) => e);
    expect({ requests: local.requests.length, name: error.name })
      .toEqual({ requests: 2, name: "ConnectionError" });
  } finally {
    await local.close();
  }
});

/** Serves `body` (as bytes) to every request, on its own loopback server, for `run`. */
async function serving<T>(
  bodies: Record<string, string>,
  run: (url: string, requests: () => string[]) => Promise<T>,
): Promise<T> {
  const local = await startReplayServer((_n, request) => {
    const body = bodies[request.path.split("/")[1]!]!;
    return [encoder.encode(body)];
  });
  try {
    return await run(local.url, () => local.requests.map((r) => r.path.split("/")[1]!));
  } finally {
    await local.close();
  }
}

const ANTHROPIC = read("anthropic/agent_2_answer.sse");
const CHAT = read("chat/openai_text.sse");

test("an upstream of another protocol goes on to the fallback, never retried", async () => {
  const result = await serving({ primary: ANTHROPIC, fallback: CHAT }, async (url, paths) => {
    const stream = streamChat({
      baseURL: `${url}/primary`,
      body: BODY["openai-chat"],
      fallbacks: [{ baseURL: `${url}/fallback` }],
      retry: { initialDelayMs: 1, maxDelayMs: 2 },
    });
    const events = [];
    for await (const event of stream) if (event.type === "fallback") events.push(event);
    return { paths: paths(), fallback: events.length, content: (await stream.result).content };
  });
  expect(result).toEqual({
    paths: ["primary", "fallback"],
    fallback: 1,
    content: expect.stringMatching(/\S/),
  });
});

test("a foreign stream cut inside an event is named too, not retried as a lost connection", async () => {
  const cut = ANTHROPIC.slice(0, ANTHROPIC.indexOf('"text_delta"') + 5);
  const error = await serving(
    { s: cut },
    (url) =>
      streamChat({ baseURL: `${url}/s`, body: BODY["openai-chat"], retry: { initialDelayMs: 1 } })
        .result.then(() => new Error("resolved"), (e: Error) => e),
  );
  expect({ name: error.name, found: (error as StreamProtocolError).foundProtocol }).toEqual({
    name: "StreamProtocolError",
    found: "anthropic-messages",
  });
});

describe("a stream of the call's protocol is never called foreign", () => {
  test("a chat chunk that also carries an Anthropic-like `type` is read as chat", async () => {
    const odd = CHAT.replace('data: {"id"', 'data: {"type":"message_start","id"');
    expect(odd).not.toBe(CHAT);
    const result = await serving(
      { s: odd },
      (url) => streamChat({ baseURL: `${url}/s`, body: BODY["openai-chat"] }).result,
    );
    expect(result.content).toMatch(/\S/);
  });

  test("a foreign first event before a chat answer leaves the answer as it is", async () => {
    const mixed = 'data: {"type":"message_start","message":{}}\n\n' + CHAT;
    const result = await serving(
      { s: mixed },
      (url) => streamChat({ baseURL: `${url}/s`, body: BODY["openai-chat"] }).result,
    );
    expect(result.content).toMatch(/\S/);
  });
});

describe("through the relay, an upstream configured with the wrong protocol", () => {
  /** Upstreams by host: `primary` answers Anthropic events although configured as chat. */
  function relay(fallback: boolean) {
    const hosts: string[] = [];
    const app = createRelay({
      upstreams: [
        { baseURL: "https://primary.test/v1", protocol: "openai-chat" },
        ...(fallback ? [{ baseURL: "https://fallback.test/v1" }] : []),
      ],
      fetch: (input) => {
        const host = new URL(String(input instanceof Request ? input.url : input)).host;
        hosts.push(host);
        const body = host === "primary.test" ? ANTHROPIC : CHAT;
        return Promise.resolve(
          new Response(body, { headers: { "content-type": "text/event-stream" } }),
        );
      },
    });
    const ask = () =>
      app.request("/v1/chat/completions", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...BODY["openai-chat"], stream: true }),
      });
    return { ask, hosts };
  }

  test("gives way to the fallback after one request", async () => {
    const { ask, hosts } = relay(true);
    const response = await ask();
    const text = await response.text();
    expect({ status: response.status, hosts, done: text.trimEnd().endsWith("data: [DONE]") })
      .toEqual({ status: 200, hosts: ["primary.test", "fallback.test"], done: true });
  });

  test("alone, ends the answer with an error event that points at the configuration", async () => {
    const { ask, hosts } = relay(false);
    const text = await (await ask()).text();
    const event = text.split("\n").find((line) => line.includes('"error"'));
    expect({ hosts, done: text.includes("[DONE]") }).toEqual({
      hosts: ["primary.test"],
      done: false,
    });
    expect(JSON.parse(event!.slice("data: ".length)).error).toMatchObject({
      code: "upstream_protocol",
      message: expect.stringContaining("base URL and protocol"),
    });
  });
});
