import { describe, expect, test } from "vitest";
import { parseChatArgs, parseDuration, UsageError } from "../../src/apps/cli/args.ts";
import {
  describeFailure,
  failureLine,
  retryLine,
  stripControls,
  summaryLine,
} from "../../src/apps/cli/format.ts";
import { type Output, Renderer, type RenderOptions } from "../../src/apps/cli/render.ts";
import { runChat } from "../../src/apps/cli/chat.ts";
import { looksLikeKey } from "../../src/apps/cli/key_safety.ts";
import { buildBody } from "../../src/apps/cli/request.ts";
import {
  APIStatusError,
  ConnectionError,
  TimeoutError,
  UpstreamStreamError,
} from "../../src/index.ts";

// The CLI's pure parts, without a process: flags, words, and what reaches each stream.

function output(isTTY: boolean): Output & { text: string } {
  const out = { text: "", isTTY, write: (chunk: string) => ((out.text += chunk), true) };
  return out;
}

function renderer(tty: boolean, extra: Partial<RenderOptions> = {}) {
  const stdout = output(tty);
  const stderr = output(tty);
  let clock = 0;
  const view = new Renderer({
    stdout,
    stderr,
    color: tty,
    spinner: false,
    showText: true,
    showReasoning: true,
    maxAttempts: 3,
    now: () => clock,
    ...extra,
  });
  return { view, stdout, stderr, tick: (ms: number) => void (clock += ms) };
}

describe("stopstream chat flags", () => {
  test("joins positional words into the prompt and converts numbers and durations", () => {
    const args = parseChatArgs([
      "--model",
      "m",
      "--max-retries",
      "4",
      "--idle-timeout",
      "1.5s",
      "a",
      "b",
    ]);
    expect(args).toMatchObject({ prompt: "a b", model: "m", maxRetries: 4, idleTimeoutMs: 1500 });
    expect(args.protocol).toBe("openai-chat");
    expect(parseChatArgs(["--demo"]).prompt).toBeUndefined();
    expect(parseChatArgs(["--demo", "--no-reasoning", "x"]).reasoning).toBe(false);
    expect(parseDuration("--idle-timeout", "30")).toBe(30_000);
    expect(parseDuration("--idle-timeout", "250ms")).toBe(250);
    expect(parseDuration("--idle-timeout", "2m")).toBe(120_000);
  });

  test.each([
    [["--model", "m", "--protocol", "grpc", "x"], "--protocol must be one of"],
    [["--model", "m", "--idle-timeout", "soon", "x"], "--idle-timeout must be a duration"],
    [["--model", "m", "--max-retries=-1", "x"], "--max-retries must be an integer"],
    [["--model", "m", "--base-url", "ftp://x", "x"], "--base-url must be an http(s) URL"],
    [["--demo", "--base-url", "http://x", "x"], "cannot be combined with --base-url"],
    [["--demo-fault", "status=503", "--model", "m", "x"], "only works with --demo"],
    [["x"], "--model is required"],
    [["--token", "abc", "x"], "not accepted as flags"],
    // Parse errors in our own words, one line each (Node's own span three, with a stray quote).
    [["--demo", "--bogus", "x"], /^unknown option --bogus$/],
    [["--demo", "--modle", "m", "x"], /^unknown option --modle; did you mean --model\?$/],
    [["--demo", "-x"], /^unknown option -x$/],
    [["--demo", "--model"], /^--model needs a value$/],
    [["--demo", "--json=yes"], /^--json takes no value$/],
    [
      ["--model", "--json", "x"],
      /^--model needs a value, not the option --json \(write --model=--json/,
    ],
  ])("%j is a usage error", (argv, message) => {
    expect(() => parseChatArgs(argv)).toThrow(UsageError);
    expect(() => parseChatArgs(argv)).toThrow(message);
  });

  test("-v and --version ask for the version, --help for the usage, without a model", () => {
    expect(parseChatArgs(["--version"])).toMatchObject({ version: true, help: false });
    expect(parseChatArgs(["-v"]).version).toBe(true);
    expect(parseChatArgs(["-h"])).toMatchObject({ help: true, version: false });
  });

  test("values that look like keys are told from the values flags take", () => {
    const keys = [
      "sk-proj-Zq8vK2mN4pL7xR1tY6wB3cD9",
      "sk-ant-api03-AbCdEfGh",
      "gsk_Zq8vK2mN4pL7",
      "AIzaSyZq8vK2mN4pL7",
      "hf_Zq8vK2mN4pLx",
      "3f9a1c0b7e2d4a6f8b5c1e0d9a7b3c2f",
      "https://host.example/v1?key=sk-or-v1-Zq8vK2mN",
    ];
    const values = [
      "openai-chat",
      "anthropic-messages",
      "30s",
      "500ms",
      "100",
      "gpt-4o-mini",
      "api.openai.com/v1",
      "ftp://x",
      "sk-...",
      "a-very-long-protocol-name",
    ];
    expect(keys.filter((key) => !looksLikeKey(key))).toEqual([]);
    expect(values.filter(looksLikeKey)).toEqual([]);
  });

  test("builds each protocol's request body", () => {
    expect(buildBody("openai-chat", "m", "hi", "be brief")).toEqual({
      model: "m",
      messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }],
    });
    expect(buildBody("anthropic-messages", "m", "hi", "be brief")).toMatchObject({
      model: "m",
      system: "be brief",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(buildBody("openai-responses", "m", "hi", undefined)).toEqual({
      model: "m",
      input: "hi",
    });
  });
});

describe("stopstream chat words", () => {
  test("retry lines say what happened, how long the wait is and which attempt comes", () => {
    expect(retryLine(new ConnectionError("reset"), 1234, 2, 3)).toBe(
      "connection dropped, retrying in 1.2 s (attempt 2/3)",
    );
    const overloaded = new APIStatusError(503, {}, { error: { message: "Overloaded." } });
    expect(describeFailure(overloaded)).toBe("server error (HTTP 503): Overloaded");
    expect(describeFailure(new APIStatusError(429, {}, ""))).toBe("rate limited (HTTP 429)");
    expect(describeFailure(new TimeoutError("idle", 30_000))).toBe("stream stalled for 30.0 s");
    const upstreamError = new UpstreamStreamError("Overloaded.", {}, "overloaded_error", true);
    expect(describeFailure(upstreamError)).toBe("upstream error: Overloaded");
  });

  test("the error that ends a call is shown as its own sentence, with the attempts it took", () => {
    const error = new APIStatusError(503, {}, { error: { message: "Overloaded." } });
    expect(failureLine(error)).toBe(
      'stopstream: the server answered HTTP 503 ("Overloaded"); try again later',
    );
    error.attempts = 3;
    expect(failureLine(error)).toBe(
      'stopstream: the server answered HTTP 503 ("Overloaded"); try again later ' +
        "(gave up after 3 attempts)",
    );
  });

  test("the summary says when an answer did not simply end: token limit, filter, error", () => {
    const facts = { elapsedMs: 1000, firstTokenMs: 100, usage: undefined, attempts: 1 };
    expect(summaryLine({ ...facts, finishReason: "stop" })).not.toMatch(/cut|withheld/);
    expect(summaryLine({ ...facts, finishReason: "length" })).toMatch(/ · cut at the token limit$/);
    expect(summaryLine({ ...facts, finishReason: "content_filter" })).toMatch(/content filter$/);
    expect(summaryLine({ ...facts, finishReason: "error" })).toMatch(/ · cut off by an error$/);
  });

  test("the summary names time to first token, tokens in/out and attempts", () => {
    const usage = { inputTokens: 12, outputTokens: 48, totalTokens: 60, raw: {} };
    expect(summaryLine({ elapsedMs: 2300, firstTokenMs: 420, usage, attempts: 1 })).toBe(
      "first token 0.4 s · 12 in / 48 out tokens · 1 attempt · 2.3 s total",
    );
    expect(summaryLine({ elapsedMs: 10, firstTokenMs: undefined, usage: undefined, attempts: 2 }))
      .toBe("no tokens · token usage not reported · 2 attempts · 0.0 s total");
  });

  test("control characters from a server never reach the terminal", () => {
    expect(stripControls("a\u001b[2Jb\u0007c\n\td")).toBe("a[2Jbc\n\td");
  });
});

describe("Renderer", () => {
  test("on pipes: exact text on stdout, plain reasoning, tool calls and summary on stderr", () => {
    const { view, stdout, stderr, tick } = renderer(false);
    view.start();
    tick(400);
    view.event({ type: "reasoning", text: "hmm" });
    view.event({ type: "text", text: "Hello \u001b[1mworld" });
    view.event({ type: "tool-call", index: 0, id: "c1", name: "get_weather" });
    view.event({ type: "tool-call-delta", index: 0, argumentsDelta: '{"city":' });
    view.event({ type: "tool-call-delta", index: 0, argumentsDelta: '"Oslo"}' });
    tick(600);
    view.finished({
      id: "x",
      model: "m",
      content: "Hello world",
      reasoning: "hmm",
      toolCalls: [],
      finishReason: "stop",
      attempts: 1,
    });
    expect(stdout.text).toBe("Hello \u001b[1mworld"); // a pipe gets the model's bytes as they are
    expect(stderr.text).toBe(
      'hmm\ntool call: get_weather({"city":"Oslo"})\n' +
        "first token 0.4 s · token usage not reported · 1 attempt · 1.0 s total\n",
    );
  });

  test("on a terminal: reasoning dimmed, text cleaned, a newline before the summary", () => {
    const { view, stdout, stderr } = renderer(true);
    view.start();
    view.event({ type: "reasoning", text: "hmm" });
    view.event({ type: "text", text: "Hi\u001b[2J" });
    view.interrupted();
    expect(stderr.text.startsWith("\u001b[2mhmm\u001b[22m")).toBe(true);
    expect(stdout.text).toBe("Hi[2J\n");
    expect(stderr.text).toContain("interrupted after 0.0 s (6 characters kept)");
  });

  test("with --json nothing but the caller's JSON goes to stdout", () => {
    const { view, stdout, stderr } = renderer(false, { showText: false });
    view.start();
    view.event({ type: "text", text: "Hello" });
    view.event({ type: "retry", attempt: 2, delayMs: 500, error: new ConnectionError("x") });
    view.event({
      type: "resume",
      lastEventId: "7",
      attempt: 3,
      delayMs: 700,
      error: new ConnectionError("x"),
    });
    view.failed(
      new ConnectionError("stopstream: the connection was lost before the answer ended; try again"),
    );
    expect(stdout.text).toBe("");
    expect(stderr.text).toBe(
      "connection dropped, retrying in 0.5 s (attempt 2/3)\n" +
        "connection dropped, resuming the answer in 0.7 s (attempt 3/3)\n" +
        "stopstream: the connection was lost before the answer ended; try again\n",
    );
  });
});

describe("NO_COLOR (docs/cli.md: it turns colour off on a terminal too)", () => {
  /** An SGR sequence: what colours and dims (the spinner's line clearing is not one). */
  // deno-lint-ignore no-control-regex
  const SGR = /\u001b\[[0-9;]*m/;

  /** `stopstream chat --demo` through runChat, both streams a terminal, in `env`. */
  async function onTerminal(env: Record<string, string>): Promise<{ code: number; err: string }> {
    const stdout = output(true);
    const stderr = output(true);
    // Reasoning (dimmed) and a retry (a yellow status line): the coloured parts of a call.
    const args = parseChatArgs([
      "--demo",
      "--demo-fault",
      "reasoning=3,word-delay=0,attempt1=status:503;retry-after-ms:1",
      "hi",
    ]);
    const code = await runChat(args, {
      stdout,
      stderr,
      env,
      stdinIsTTY: true,
      readStdin: () => Promise.reject(new Error("no stdin in this test")),
      signal: new AbortController().signal,
    });
    return { code, err: stderr.text };
  }

  test("a terminal gets colour without it, and none with it (set to anything)", async () => {
    const coloured = await onTerminal({});
    expect(coloured.code).toBe(0);
    expect(coloured.err).toMatch(SGR);
    for (const value of ["1", "true"]) {
      const plain = await onTerminal({ NO_COLOR: value });
      expect(plain.code).toBe(0);
      expect(plain.err).toContain("Let me"); // the reasoning is still shown, undimmed
      expect(plain.err).toContain("retrying in");
      expect(plain.err).not.toMatch(SGR);
    }
  });
});
