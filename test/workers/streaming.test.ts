import { describe, expect, it } from "vitest";
import { chatBody, contentOf, deltaOf, demoRelay, parseSSE, postChat } from "./helpers.ts";

describe("streaming from the demo upstream", () => {
  it("streams text chunks, a finish chunk, the usage chunk when asked, then [DONE]", async () => {
    const { app, requests } = demoRelay();
    const response = await postChat(
      app,
      chatBody({ stream: true, stream_options: { include_usage: true } }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const body = parseSSE(await response.text());
    expect(body.done).toBe(true);
    expect(contentOf(body)).toMatch(/^You said: "hello relay"\. This is the stopstream demo model/);
    expect(deltaOf(body.data[0]!)).toEqual(expect.objectContaining({ role: "assistant" }));
    expect(body.data.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    const finish = body.data.at(-2)!;
    expect((finish.choices as Array<{ finish_reason: string }>)[0]!.finish_reason).toBe("stop");
    const usage = body.data.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage).toEqual(
      expect.objectContaining({
        prompt_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
      }),
    );
    expect(requests).toHaveLength(1);
  });

  it("sends no usage chunk unless stream_options.include_usage is set", async () => {
    const { app } = demoRelay();
    const body = parseSSE(await (await postChat(app, chatBody({ stream: true }))).text());
    expect(body.data.some((c) => "usage" in c)).toBe(false);
    expect(body.done).toBe(true);
  });

  it("translates reasoning into reasoning_content and tool calls into tool_calls deltas", async () => {
    const { app } = demoRelay();
    const tools = [{
      type: "function",
      function: { name: "get_weather", parameters: { type: "object" } },
    }];
    const response = await postChat(app, chatBody({ model: "demo-reason", stream: true, tools }));
    const body = parseSSE(await response.text());
    const deltas = body.data.map((c) => deltaOf(c) ?? {});
    const reasoning = deltas.map((d) => (d.reasoning_content as string | undefined) ?? "").join("");
    expect(reasoning.length).toBeGreaterThan(10);
    const calls = deltas.flatMap((d) =>
      (d.tool_calls as
        | Array<{ index: number; function: { name?: string; arguments?: string } }>
        | undefined) ?? []
    );
    expect(calls[0]).toEqual(
      expect.objectContaining({ index: 0, type: "function", id: expect.any(String) }),
    );
    expect(calls[0]!.function.name).toBe("get_weather");
    const args = calls.map((c) => c.function.arguments ?? "").join("");
    expect(() => JSON.parse(args)).not.toThrow();
    const finish = body.data.at(-1)!.choices as Array<{ finish_reason: string }>;
    expect(finish[0]!.finish_reason).toBe("tool_calls");
  });

  it("answers stream: false with one chat.completion assembled from the upstream stream", async () => {
    const { app, requests } = demoRelay();
    const response = await postChat(app, chatBody({ stream: false }));
    expect(response.status).toBe(200);
    const completion = (await response.json()) as {
      object: string;
      choices: Array<{ message: { role: string; content: string }; finish_reason: string }>;
      usage: { total_tokens: number };
    };
    expect(completion.object).toBe("chat.completion");
    expect(completion.choices[0]!.message.role).toBe("assistant");
    expect(completion.choices[0]!.message.content).toMatch(/^You said: "hello relay"/);
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage.total_tokens).toBeGreaterThan(0);
    expect(requests).toHaveLength(1);
  });
});

describe("failures", () => {
  it("a 503 before the first token is retried invisibly: the caller sees a clean stream", async () => {
    const { app, requests } = demoRelay();
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "attempt1=status:503" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-stopstream-attempts")).toBe("2");
    const body = parseSSE(await response.text());
    expect(body.done).toBe(true);
    expect(body.raw).not.toContain("error");
    expect(requests.map((r) => r.attempt)).toEqual([1, 2]);
    expect(requests[0]!.faults).toBe("attempt1=status:503");
  });

  it("sends `: keep-alive` comments every keepAliveMs while the first token is slow", async () => {
    const { app, requests } = demoRelay({ keepAliveMs: 20 });
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "first-byte-ms=150" },
    });
    const body = parseSSE(await response.text());
    const early = body.comments.filter((c) => c.text === "keep-alive" && c.beforeData === 0);
    expect(early.length).toBeGreaterThanOrEqual(3);
    expect(body.done).toBe(true);
    expect(contentOf(body)).toMatch(/^You said/);
    expect(requests).toHaveLength(1);
  });

  it("during a silence mid-answer, a `: keep-alive` comes once keepAliveMs passes without a write", async () => {
    const { app } = demoRelay({ keepAliveMs: 40 });
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "stall-after=3,stall-ms=300" },
    });
    const body = parseSSE(await response.text());
    const silence = body.comments.filter((c) => c.text === "keep-alive" && c.beforeData > 0);
    // 300 ms of silence, a comment at most 1.25 × 40 ms after the last write: 6 or more.
    expect(silence.length).toBeGreaterThanOrEqual(5);
    expect(silence.every((c) => c.beforeData === silence[0]!.beforeData)).toBe(true);
    expect(body.done).toBe(true);
  });

  it("a failure after content ends the stream with an error event and no [DONE]", async () => {
    const { app, requests } = demoRelay();
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "drop-after=3" },
    });
    expect(response.status).toBe(200);
    const body = parseSSE(await response.text());
    expect(body.done).toBe(false);
    expect(contentOf(body).length).toBeGreaterThan(0);
    const last = body.data.at(-1) as { error?: { message: string; code: string } };
    expect(last.error?.code).toBe("incomplete_stream");
    // Content had reached the caller: a retry would repeat it, so there is none.
    expect(requests).toHaveLength(1);
  });

  it("an in-stream error event after content is relayed as an error event, no [DONE]", async () => {
    const { app, requests } = demoRelay();
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "error-event-after=2" },
    });
    const body = parseSSE(await response.text());
    expect(body.done).toBe(false);
    expect(body.data.at(-1)).toHaveProperty("error");
    expect(requests).toHaveLength(1);
  });

  it("an upstream 4xx keeps its status and message", async () => {
    const { app, requests } = demoRelay();
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "status=422" },
    });
    expect(response.status).toBe(422);
    const json = (await response.json()) as { error: { message: string } };
    expect(json.error.message).toContain("demo fault status=422");
    expect(requests).toHaveLength(1);
  });

  it("retries that run out before content are a 502 with the upstream's message", async () => {
    const { app, requests } = demoRelay({ maxRetries: 1 });
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "status=503" },
    });
    expect(response.status).toBe(502);
    const json = (await response.json()) as { error: { message: string; type: string } };
    expect(json.error.message).toContain("HTTP 503");
    expect(requests).toHaveLength(2);
  });
});

describe("caller disconnect", () => {
  it("cancelling the response body cancels the upstream stream at once, with no retry", async () => {
    const { app, requests, cancelled } = demoRelay();
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "word-delay=20" },
    });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    const info = await cancelled;
    expect(info.attempt).toBe(1);
    expect(info.wordsSent).toBeLessThan(10);
    expect(requests).toHaveLength(1);
  });

  it("an aborted request signal cancels the upstream stream at once, with no retry", async () => {
    const { app, requests, cancelled } = demoRelay();
    const caller = new AbortController();
    const response = await postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "word-delay=20" },
      signal: caller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    caller.abort();
    const info = await cancelled;
    expect(info.attempt).toBe(1);
    expect(requests).toHaveLength(1);
  });

  it("an abort while waiting for the first byte stops the upstream request too", async () => {
    const { app, requests, cancelled } = demoRelay();
    const caller = new AbortController();
    const pending = postChat(app, chatBody({ stream: true }), {
      headers: { "x-demo-fault": "first-byte-ms=5000" },
      signal: caller.signal,
    });
    while (requests.length === 0) await new Promise((r) => setTimeout(r, 1));
    caller.abort();
    expect((await cancelled).wordsSent).toBe(0);
    await pending.catch(() => {});
    expect(requests).toHaveLength(1);
  });
});
