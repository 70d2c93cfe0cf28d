import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { parseDemoRequest, planDemoReply } from "../../src/apps/demo/reply.ts";
import { createFaultHandler } from "../support/fault_handler.ts";
import { startFirehose } from "../support/firehose.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { ensureBuilt, spawnCli, startChunkCounter } from "./cli_helpers.ts";

// `stopstream chat` as users run it: `node bin/stopstream.mjs` in a child process (pipes, so
// not a TTY), against the loopback fault server.

const faults = createFaultHandler({ wordDelayMs: 5 });
let server: NodeServer;
let nextId = 0;

beforeAll(async () => {
  await ensureBuilt();
  server = await startNodeServer(faults.handler);
}, 60_000);
afterAll(() => server?.close());

/** A fresh fault route: its own request counter, faults from `spec` (see `x-demo-fault`). */
function route(spec = ""): { id: string; baseURL: string } {
  const id = `cli-${++nextId}`;
  return { id, baseURL: `${server.url}/t/${id}/f/${encodeURIComponent(spec)}/v1` };
}

/** One OpenAI chat chunk as an SSE event. */
function chunkEvent(delta: Record<string, unknown>, finish: string | null = null): string {
  const choice = { index: 0, delta, finish_reason: finish };
  return `data: ${
    JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [choice] })
  }\n\n`;
}

/** What the demo model answers to one user message. */
function reply(prompt: string, words?: number): string {
  const body = parseDemoRequest({ model: "demo", messages: [{ role: "user", content: prompt }] });
  const plan = planDemoReply(body, words === undefined ? {} : { words });
  return plan.message.content as string;
}

// deno-lint-ignore no-control-regex
const ESCAPE = /\u001b/;

describe("stopstream chat", () => {
  test("streams the answer to stdout as it arrives and sends the key as a bearer token", async () => {
    const { id, baseURL } = route("word-delay=10");
    const run = spawnCli(["chat", "--base-url", baseURL, "--model", "demo", "hello", "there"]);
    const first = await run.waitFor("stdout", (text) => text.length > 0);
    const { code, stdout, stderr } = await run.exited;
    expect(code).toBe(0);
    expect(stdout).toBe(reply("hello there"));
    expect(first.length).toBeLessThan(stdout.length);
    expect(run.stdoutChunks()).toBeGreaterThan(3);
    expect(stderr).toMatch(/^first token \d+\.\d s · \d+ in \/ \d+ out tokens · 1 attempt · /m);
    expect(faults.stats(id)).toMatchObject({ requests: 1, completed: 1, cancelled: 0 });
    const seen = server.requests().find((r) => r.path.startsWith(`/t/${id}/`));
    expect(seen?.headers.get("authorization")).toBe("Bearer test-key");
  });

  test("reads the prompt from stdin when none is given", async () => {
    const { id, baseURL } = route();
    const run = spawnCli(["chat", "--base-url", baseURL, "--model", "demo"], {
      input: "from stdin\n",
    });
    const { code, stdout } = await run.exited;
    expect(code).toBe(0);
    expect(stdout).toBe(reply("from stdin"));
    expect(faults.stats(id).requests).toBe(1);
  });

  test("a 503 on the first attempt shows a retry status line on stderr, then the answer", async () => {
    const { id, baseURL } = route("attempt1=status:503");
    const run = spawnCli(["chat", "--base-url", baseURL, "--model", "demo", "hi"]);
    const { code, stdout, stderr } = await run.exited;
    expect(code).toBe(0);
    expect(stderr).toMatch(/server error \(HTTP 503\).*, retrying in \d+\.\d s \(attempt 2\/3\)\n/);
    expect(stderr).toMatch(/ · 2 attempts · /);
    expect(stdout).toBe(reply("hi"));
    expect(faults.stats(id)).toMatchObject({ requests: 2, completed: 1 });
  });

  test("a server that goes silent before the answer: a stall status line, then the answer", async () => {
    // A role-only chunk is progress but no output: the silence after it is a retryable stall.
    let requests = 0;
    const stalling = await startNodeServer(() => {
      const first = ++requests === 1;
      const body = first
        ? new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(chunkEvent({ role: "assistant" })));
          },
        })
        : [chunkEvent({ content: "ok" }), chunkEvent({}, "stop"), "data: [DONE]\n\n"].join("");
      return Promise.resolve(
        new Response(body, { headers: { "content-type": "text/event-stream" } }),
      );
    });
    try {
      const base = `${stalling.url}/v1`;
      const args = ["chat", "--idle-timeout", "300ms", "--base-url", base, "--model", "m"];
      const { code, stdout, stderr } = await spawnCli([...args, "hi"]).exited;
      expect({ code, stdout, requests }).toEqual({ code: 0, stdout: "ok", requests: 2 });
      expect(stderr).toMatch(/stream stalled for 0\.3 s, retrying in \d+\.\d s \(attempt 2\/3\)\n/);
    } finally {
      await stalling.close();
    }
  });

  test("--json prints the final ChatResult, and only that, on stdout", async () => {
    const { id, baseURL } = route("reasoning=3");
    const run = spawnCli(["chat", "--json", "--base-url", baseURL, "--model", "demo", "hi"]);
    const { code, stdout } = await run.exited;
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({
      content: reply("hi"),
      reasoning: "Let me think",
      finishReason: "stop",
      attempts: 1,
      toolCalls: [],
      target: { index: 0, protocol: "openai-chat", model: "demo" },
    });
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(faults.stats(id).requests).toBe(1);
  });

  test("--json after a failure before any answer still prints one object, failed: true", async () => {
    const { id, baseURL } = route("status=400");
    const run = spawnCli(["chat", "--json", "--base-url", baseURL, "--model", "demo", "hi"]);
    const { code, stdout } = await run.exited;
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({
      content: "",
      failed: true,
      attempts: 1,
      error: { name: "APIStatusError" },
    });
    expect(faults.stats(id).requests).toBe(1);
  });

  test("a stream cut after output exits 2, keeps the text and says so", async () => {
    const { id, baseURL } = route("drop-after=4");
    const run = spawnCli(["chat", "--base-url", baseURL, "--model", "demo", "hi"]);
    const { code, stdout, stderr } = await run.exited;
    expect(code).toBe(2);
    expect(stdout).toBe(reply("hi", 4));
    expect(stderr).toMatch(
      /^stopstream: the connection was lost after part of the answer had arrived; .*\(\d+ characters kept\)$/m,
    );
    expect(faults.stats(id).requests).toBe(1); // never retried: a retry would repeat output
  });

  test("--json after a cut mid-answer prints the partial result: partial, finish error, the error", async () => {
    const { id, baseURL } = route("drop-after=4");
    const run = spawnCli(["chat", "--json", "--base-url", baseURL, "--model", "demo", "hi"]);
    const { code, stdout } = await run.exited;
    expect(code).toBe(2);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({
      content: reply("hi", 4),
      partial: true,
      finishReason: "error",
      error: { name: "ConnectionError" },
    });
    expect(typeof result.error.message).toBe("string");
    expect(faults.stats(id).requests).toBe(1);
  });

  test("--no-reasoning shows the answer without the model's reasoning", async () => {
    const { baseURL } = route("reasoning=3");
    const shown = await spawnCli(["chat", "--base-url", baseURL, "--model", "demo", "hi"]).exited;
    const hidden = await spawnCli([
      "chat",
      "--no-reasoning",
      ...["--base-url", route("reasoning=3").baseURL, "--model", "demo", "hi"],
    ]).exited;
    expect(shown.stderr + shown.stdout).toContain("Let me think");
    expect(hidden.code).toBe(0);
    expect(hidden.stdout).toBe(reply("hi"));
    expect(hidden.stderr + hidden.stdout).not.toContain("Let me think");
  });

  test("no prompt (an empty stdin) is a usage mistake: exit 64, one line", async () => {
    const run = spawnCli(["chat", "--base-url", route().baseURL, "--model", "demo"], { input: "" });
    const { code, stdout, stderr } = await run.exited;
    expect(code).toBe(64);
    expect(stdout).toBe("");
    expect(stderr.trim().split("\n")).toHaveLength(1);
  });

  test("--demo serves the demo model in-process, with no key and no server of ours", async () => {
    const run = spawnCli(["chat", "--demo", "hello"], { env: { OPENAI_API_KEY: undefined } });
    const { code, stdout } = await run.exited;
    expect(code).toBe(0);
    expect(stdout).toBe(reply("hello"));
  });
});

describe("stopstream chat --protocol", () => {
  test("anthropic-messages sends the Messages body with x-api-key and streams the text", async () => {
    const bodies: unknown[] = [];
    const events = [
      {
        type: "message_start",
        message: { id: "msg_1", model: "claude-x", usage: { input_tokens: 7, output_tokens: 0 } },
      },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } },
      { type: "message_stop" },
    ];
    const sse = events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
    const anthropic = await startNodeServer(async (request) => {
      bodies.push(await request.json());
      return new Response(sse, { headers: { "content-type": "text/event-stream" } });
    });
    try {
      const args = [
        "chat",
        "--protocol",
        "anthropic-messages",
        "--base-url",
        `${anthropic.url}/v1`,
      ];
      const run = spawnCli([...args, "--model", "claude-x", "--system", "be brief", "hi"], {
        env: { OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: "ant-key" },
      });
      const { code, stdout, stderr } = await run.exited;
      expect(code).toBe(0);
      expect(stdout).toBe("Hello");
      expect(stderr).toMatch(/ 7 in \/ 2 out tokens · 1 attempt · /);
      const [seen] = anthropic.requests();
      expect(anthropic.requests()).toHaveLength(1);
      expect(seen?.path).toBe("/v1/messages");
      expect(seen?.headers.get("x-api-key")).toBe("ant-key");
      expect(bodies[0]).toMatchObject({
        model: "claude-x",
        system: "be brief",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      });
    } finally {
      await anthropic.close();
    }
  });
});

describe("stopstream chat: Ctrl-C", () => {
  test("SIGINT mid-stream exits 130 at once, keeps the output, and closes the connection", async () => {
    const { id, baseURL } = route("words=2000,word-delay=10");
    const before = server.requests().length;
    const run = spawnCli(["chat", "--base-url", baseURL, "--model", "demo", "hi"]);
    await run.waitFor("stdout", (text) => text.length > 20);
    const served = server.requests()[before];
    const sentAt = performance.now();
    run.child.kill("SIGINT");
    const { code, stdout, stderr, at } = await run.exited;
    expect(code).toBe(130);
    expect(at - sentAt).toBeLessThan(500);
    expect(reply("hi", 2000).startsWith(stdout)).toBe(true);
    expect(stdout.length).toBeGreaterThan(20);
    expect(stderr).toMatch(/interrupted after \d+\.\d s \(\d+ characters kept\)/);
    expect(served?.path).toContain(`/t/${id}/`);
    expect(await served?.closed).toBe("aborted");
    expect(await faults.waitFor(id, { cancelled: 1 })).toMatchObject({
      requests: 1,
      cancelled: 1,
      completed: 0,
    });
  });

  test("SIGINT with --json prints what arrived as one JSON object with interrupted: true", async () => {
    // --json shows nothing until the end, so the server says when the answer is well under way:
    // 30 chunks written at 10 ms a word leave the client ample time to have read the first.
    const { id } = route();
    const { server: counting, flowing } = await startChunkCounter(faults.handler, 30);
    const spec = encodeURIComponent("words=2000,word-delay=10,reasoning=2");
    const baseURL = `${counting.url}/t/${id}/f/${spec}/v1`;
    const run = spawnCli(["chat", "--json", "--base-url", baseURL, "--model", "demo", "hi"]);
    await flowing;
    run.child.kill("SIGINT");
    const { code, stdout } = await run.exited;
    expect(code).toBe(130);
    const printed = JSON.parse(stdout);
    expect(printed).toMatchObject({
      interrupted: true,
      attempts: 1,
      reasoning: "Let me",
      toolCalls: [],
      error: { name: "InterruptedError" },
    });
    expect(printed.content.length).toBeGreaterThan(0);
    expect(reply("hi", 2000).startsWith(printed.content)).toBe(true);
    expect(await faults.waitFor(id, { cancelled: 1 })).toMatchObject({ requests: 1, cancelled: 1 });
    await counting.close();
  });

  test("SIGINT during a Retry-After backoff exits 130 at once and makes no second request", async () => {
    const { id, baseURL } = route("attempt1=status:503;retry-after:10");
    const run = spawnCli(["chat", "--base-url", baseURL, "--model", "demo", "hi"]);
    await run.waitFor("stderr", (text) => text.includes("retrying in 10.0 s (attempt 2/3)"));
    const sentAt = performance.now();
    run.child.kill("SIGINT");
    const { code, stdout, stderr, at } = await run.exited;
    expect(code).toBe(130);
    expect(at - sentAt).toBeLessThan(500);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/interrupted after/);
    expect(faults.stats(id).requests).toBe(1);
  });

  test("a Ctrl-C while stdout cannot be flushed still exits 130: the hard deadline does not wait", async () => {
    // Cleanup that cannot finish: a 1 MiB answer to a stdout nobody reads (a pager that stopped
    // scrolling), printed with --json as one object at the end (streamed text would hold the
    // answer back instead: the CLI waits for its reader). The answer is whole, so the CLI sits
    // in its final flush; only the deadline the first Ctrl-C sets can end it. Without that
    // deadline this test times out.
    const text = "x".repeat(256 * 1024);
    const big = await startNodeServer(() =>
      Promise.resolve(
        new Response(
          [
            ...Array.from({ length: 4 }, () => chunkEvent({ content: text })),
            chunkEvent({}, "stop"),
            "data: [DONE]\n\n",
          ].join(""),
          { headers: { "content-type": "text/event-stream" } },
        ),
      )
    );
    const run = spawnCli(["chat", "--json", "--base-url", `${big.url}/v1`, "--model", "m", "hi"]);
    try {
      run.child.stdout!.pause(); // read nothing: the pipe fills and the flush never ends
      const exited = new Promise<[number | null, string | null]>((resolve) =>
        run.child.once("exit", (code, signal) => resolve([code, signal]))
      );
      await run.waitFor("stderr", (err) => /total/.test(err)); // the summary: the answer is done
      run.child.kill("SIGINT");
      expect(await exited).toEqual([130, null]);
      run.child.stdout!.resume();
      await run.exited;
    } finally {
      if (run.child.exitCode === null) run.child.kill("SIGKILL"); // a regression hangs: end it
      await big.close();
    }
  });

  test("closing the reader of stdout (`| head -1`) stops the call quietly", async () => {
    const { id, baseURL } = route("words=2000,word-delay=10");
    const before = server.requests().length;
    const run = spawnCli(["chat", "--base-url", baseURL, "--model", "demo", "hi"]);
    await run.waitFor("stdout", (text) => text.length > 0);
    const served = server.requests()[before];
    run.child.stdout!.destroy(); // what `head` does once it has its line: the next write is EPIPE
    const { code, stderr } = await run.exited;
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/internal error|EPIPE|\n\s+at /);
    expect(await served?.closed).toBe("aborted");
    expect(await faults.waitFor(id, { cancelled: 1 })).toMatchObject({
      requests: 1,
      cancelled: 1,
      completed: 0,
    });
  });
});

describe("stopstream chat: mistakes", () => {
  test("a missing key names the variable to set and sends nothing", async () => {
    // 0.0.0.0 is not taken for loopback (so a key is required), yet it could only ever reach
    // this machine if the check were broken.
    const remote = ["--base-url", "http://0.0.0.0:9/v1", "--model", "m", "hi"];
    const env = { OPENAI_API_KEY: undefined };
    const { code, stderr } = await spawnCli(["chat", ...remote], { env }).exited;
    expect(code).toBe(78);
    expect(stderr).toContain("set the environment variable OPENAI_API_KEY");
    const anthropic = spawnCli(["chat", "--protocol", "anthropic-messages", ...remote]);
    expect((await anthropic.exited).stderr).toContain(
      "set the environment variable ANTHROPIC_API_KEY",
    );
    const { id, baseURL } = route();
    const named = spawnCli([
      "chat",
      "--base-url",
      baseURL,
      "--model",
      "m",
      "--api-key-env",
      "MY_KEY",
      "hi",
    ]);
    const explicit = await named.exited;
    expect(explicit.code).toBe(78);
    expect(explicit.stderr).toContain("set the environment variable MY_KEY");
    expect(faults.stats(id).requests).toBe(0);
  });

  test("a loopback server is asked without a key when the default variable is unset", async () => {
    const { id, baseURL } = route();
    const env = { OPENAI_API_KEY: undefined };
    const run = spawnCli(["chat", "--base-url", baseURL, "--model", "demo", "hi"], { env });
    expect((await run.exited).code).toBe(0);
    const seen = server.requests().find((r) => r.path.startsWith(`/t/${id}/`));
    expect(seen?.headers.has("authorization")).toBe(false);
  });

  test("only this machine counts as loopback for the optional key", async () => {
    // Port 9 (discard) has no listener here: a loopback URL fails to connect (not exit 78), and
    // a look-alike of one is refused for its missing key.
    const env = { OPENAI_API_KEY: undefined };
    const exitOf = async (baseURL: string) => {
      const run = spawnCli([
        "chat",
        "--base-url",
        baseURL,
        "--model",
        "m",
        "--max-retries",
        "0",
        "hi",
      ], {
        env,
      });
      const { code, stderr } = await run.exited;
      return { code, missingKey: stderr.includes("set the environment variable OPENAI_API_KEY") };
    };
    for (const url of ["http://localhost:9/v1", "http://[::1]:9/v1", "http://127.255.0.1:9/v1"]) {
      const { code, missingKey } = await exitOf(url);
      expect({ url, missingKey, refused: code === 78 }).toEqual({
        url,
        missingKey: false,
        refused: false,
      });
    }
    for (
      const url of [
        "http://localhost.example:9/v1",
        "http://127.0.0.1.example:9/v1",
        "http://128.0.0.1:9/v1",
        "http://[::2]:9/v1",
      ]
    ) {
      expect({ url, ...(await exitOf(url)) }).toEqual({ url, code: 78, missingKey: true });
    }
  });

  test("a key goes over plain http to another machine only with --allow-insecure", async () => {
    const { id, baseURL } = route();
    // 0.0.0.0 reaches this machine, yet it is not a loopback address by name: as remote as the
    // CLI can tell, while the test stays on loopback.
    const remote = ["--base-url", baseURL.replace("//127.0.0.1:", "//0.0.0.0:"), "--model", "demo"];
    const refused = await spawnCli(["chat", ...remote, "hi"]).exited;
    expect(refused).toMatchObject({
      code: 64,
      stdout: "",
      stderr: "stopstream: not sending the key in OPENAI_API_KEY over plain http to another " +
        "machine (anything on the way could read it): use an https URL, or pass --allow-insecure\n",
    });
    expect(faults.stats(id).requests).toBe(0);
    const allowed = await spawnCli(["chat", ...remote, "--allow-insecure", "hi"]).exited;
    expect(allowed.code).toBe(0);
    expect(faults.stats(id).requests).toBe(1);
    const seen = server.requests().find((r) => r.path.startsWith(`/t/${id}/`));
    expect(seen?.headers.get("authorization")).toBe("Bearer test-key");
  });

  test("a key passed as a flag is refused without being echoed", async () => {
    for (const args of [["--api-key=sk-secret-1"], ["--api-key-env", "sk-secret-1"]]) {
      const { code, stderr } = await spawnCli(["chat", "--demo", ...args, "hi"]).exited;
      expect(code).toBe(64);
      expect(stderr).not.toContain("sk-secret-1");
    }
  });

  test("output to pipes has no escape codes, even with reasoning, retries and a failure", async () => {
    const { id, baseURL } = route("reasoning=4,attempt1=status:503,attempt2=drop-after:3");
    const run = spawnCli([
      "chat",
      "--base-url",
      baseURL,
      "--model",
      "demo",
      "--max-retries",
      "1",
      "hi",
    ]);
    const { code, stdout, stderr } = await run.exited;
    expect(code).toBe(2);
    expect(stderr).toContain("Let me think\n"); // reasoning, undimmed
    expect(stderr).toContain("retrying in");
    expect(stdout + stderr).not.toMatch(ESCAPE);
    expect(faults.stats(id).requests).toBe(2);
  });
});

describe("stopstream chat: stdout piped into a reader that stops reading", () => {
  test("holds the upstream back instead of buffering the answer, and Ctrl-C still stops it", async () => {
    // An upstream writing content as fast as its socket takes it (test/support/firehose.ts).
    const upstream = await startFirehose(chunkEvent({ content: "x".repeat(100) }));
    try {
      const run = spawnCli([
        ...["chat", "--base-url", upstream.baseURL, "--model", "m"],
        ...["--max-retries", "0", "hi"],
      ]);
      await run.waitFor("stdout", (text) => text.length > 0);
      run.child.stdout!.pause(); // `| less`, and the user stops scrolling
      // Waiting for its stdout holds the client, and so the upstream, back. It read on
      // regardless, holding the answer in memory (128 MiB within a second or two).
      expect(await upstream.outcome).toBe("held");
      expect(upstream.written()).toBeLessThan(32 * 2 ** 20);
      const sentAt = performance.now();
      run.child.kill("SIGINT");
      run.child.stdout!.resume();
      const { code, at } = await run.exited;
      expect(code).toBe(130);
      expect(at - sentAt).toBeLessThan(1_000);
    } finally {
      await upstream.close();
    }
  });
});
