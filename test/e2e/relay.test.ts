/**
 * The relay Worker under `wrangler dev` (a real workerd behind a real socket), driven by the
 * official `openai` SDK, plus the proof that a caller who disconnects makes the relay abort
 * its upstream request (`enable_request_signal`).
 */
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoUpstream } from "../../src/apps/demo/upstream.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { startWranglerDev, type WranglerDev } from "./wrangler_dev.ts";

const TOOLS: OpenAI.Chat.Completions.ChatCompletionTool[] = [{
  type: "function",
  function: {
    name: "get_weather",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
}];

/**
 * A loopback upstream for the disconnect proof. The relay forwards no `x-demo-fault` to real
 * upstreams, so the fault spec travels as the prompt itself.
 */
function promptFaultUpstream(): (request: Request) => Promise<Response> {
  const demo = createDemoUpstream({ wordDelayMs: 40 });
  return async (request) => {
    const body = await request.clone().json() as { messages: Array<{ content: string }> };
    const headers = new Headers(request.headers);
    headers.set("x-demo-fault", body.messages.at(-1)?.content ?? "");
    return demo(new Request(request, { headers }));
  };
}

let demoRelay: WranglerDev;
let proxyRelay: WranglerDev;
let upstream: NodeServer;

beforeAll(async () => {
  upstream = await startNodeServer(promptFaultUpstream());
  [demoRelay, proxyRelay] = await Promise.all([
    startWranglerDev(),
    // The default KEEPALIVE_MS (15 s): noticing a caller gone must not depend on it.
    startWranglerDev({ UPSTREAM_BASE_URL: `${upstream.url}/v1`, UPSTREAM_MODEL: "loopback" }),
  ]);
});

afterAll(async () => {
  await Promise.all([demoRelay?.stop(), proxyRelay?.stop()]);
  await upstream?.close();
});

describe("wrangler dev + the official openai SDK (demo upstream)", () => {
  const client = (): OpenAI =>
    new OpenAI({ baseURL: `${demoRelay.url}/v1`, apiKey: "unused", maxRetries: 0 });

  it("streams text, then a usage chunk", async () => {
    const stream = await client().chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content: "Hello from the SDK" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined | null;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(chunks).toBeGreaterThan(10);
    expect(text).toMatch(/^You said: "Hello from the SDK"\./);
    expect(finish).toBe("stop");
    expect(usage?.total_tokens).toBeGreaterThan(0);
  });

  it("streams tool calls", async () => {
    const stream = await client().chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content: "Weather in Oslo?" }],
      tools: TOOLS,
      stream: true,
    });
    const calls: Array<{ id?: string; name?: string; args: string }> = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        const slot = (calls[call.index] ??= { args: "" });
        if (call.id) slot.id = call.id;
        if (call.function?.name) slot.name = call.function.name;
        slot.args += call.function?.arguments ?? "";
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(calls).toHaveLength(1);
    expect(calls[0]!.name).toBe("get_weather");
    expect(calls[0]!.id).toEqual(expect.any(String));
    expect(JSON.parse(calls[0]!.args)).toEqual(
      expect.objectContaining({ city: expect.any(String) }),
    );
    expect(finish).toBe("tool_calls");
  });

  it("answers stream: false with one chat.completion", async () => {
    const completion = await client().chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content: "Not streaming" }],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]?.message.content).toMatch(/^You said: "Not streaming"\./);
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("a 503 on the first attempt is retried by the relay, invisibly to the SDK", async () => {
    const { data: stream, response } = await client().chat.completions.create(
      { model: "demo", messages: [{ role: "user", content: "Retry me" }], stream: true },
      { headers: { "x-demo-fault": "attempt1=status:503" } },
    ).withResponse();
    expect(response.headers.get("x-stopstream-attempts")).toBe("2");
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toMatch(/^You said: "Retry me"\./);
  });

  it("a drop after content surfaces in the SDK as an error, not a silent truncation", async () => {
    const stream = await client().chat.completions.create(
      { model: "demo", messages: [{ role: "user", content: "Drop me" }], stream: true },
      { headers: { "x-demo-fault": "drop-after=3" } },
    );
    let text = "";
    const consume = async (): Promise<void> => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    };
    await expect(consume()).rejects.toThrow(/after part of the answer was sent/);
    expect(text.length).toBeGreaterThan(0);
  });
});

describe("wrangler dev: a caller that disconnects aborts the upstream request", () => {
  const post = (content: string, signal: AbortSignal, stream = true): Promise<Response> =>
    fetch(`${proxyRelay.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "x", stream, messages: [{ role: "user", content }] }),
      signal,
    });

  /**
   * Disconnects once `ready` resolves; the upstream must see its connection close within 2 s
   * of that (workerd notices only when a write to the caller fails), and a later request must
   * be the only other one: the abandoned call was never retried.
   */
  async function expectUpstreamCut(
    before: number,
    caller: AbortController,
    ready: Promise<unknown>,
  ): Promise<void> {
    const served = await upstream.request(before + 1);
    await ready;
    const disconnected = Date.now();
    caller.abort();
    expect(await served.closed).toBe("aborted");
    expect(Date.now() - disconnected).toBeLessThan(2_000);
    const ok = await post("words=3", AbortSignal.timeout(10_000));
    expect(await ok.text()).toContain("[DONE]");
    expect(upstream.requests().length).toBe(before + 2);
  }

  it("mid-stream: the upstream sees its stream cancelled, and nothing is retried", async () => {
    const before = upstream.requests().length;
    const caller = new AbortController();
    const response = await post("words=200", caller.signal);
    expect(response.status).toBe(200);
    await response.body!.getReader().read();
    await expectUpstreamCut(before, caller, Promise.resolve());
  });

  it("streaming, while the upstream is silent before the first token", async () => {
    const before = upstream.requests().length;
    const caller = new AbortController();
    const response = await post("stall-after=0,stall-ms=20000", caller.signal);
    expect(response.status).toBe(200);
    await expectUpstreamCut(before, caller, Promise.resolve());
  });

  it("streaming, before the upstream answers at all (before the relay commits)", async () => {
    const before = upstream.requests().length;
    const caller = new AbortController();
    const pending = post("first-byte-ms=20000", caller.signal).catch((error: unknown) => error);
    await expectUpstreamCut(before, caller, Promise.resolve());
    expect(await pending).toBeInstanceOf(Error);
  });

  it("stream: false, before the relay commits: the upstream is cut within 2 s", async () => {
    const before = upstream.requests().length;
    const caller = new AbortController();
    const pending = post("first-byte-ms=20000", caller.signal, false).catch((e: unknown) => e);
    await expectUpstreamCut(before, caller, Promise.resolve());
    expect(await pending).toBeInstanceOf(Error);
  });

  it("stream: false, after the commit (while the relay writes spaces)", async () => {
    const before = upstream.requests().length;
    const caller = new AbortController();
    const response = await post("first-byte-ms=20000", caller.signal, false);
    expect(response.status).toBe(200);
    const first = response.body!.getReader().read();
    expect(new TextDecoder().decode((await first).value)).toMatch(/^ +$/);
    await expectUpstreamCut(before, caller, Promise.resolve());
  });
});
