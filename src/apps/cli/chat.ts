// `stopstream chat`: one prompt in, one streamed answer out, every outcome an exit status.

import {
  type ChatResult,
  isInterruptedError,
  isPartialStreamError,
  streamChat,
  type StreamChatOptions,
} from "../../index.ts";
import { createDemoUpstream, DEMO_ATTEMPT_HEADER, DEMO_FAULT_HEADER } from "../demo/upstream.ts";
import type { ChatArgs } from "./args.ts";
import { resultJSON } from "./format.ts";
import { isInsecure, isLoopback } from "./key_safety.ts";
import { type Output, Renderer } from "./render.ts";
import { buildBody, PROTOCOL_DEFAULTS } from "./request.ts";
import { type LoopbackServer, serveLoopback } from "./serve.ts";
import { Transcript } from "./transcript.ts";

/** 64 and 78 follow BSD `sysexits.h`; 130 is 128 + SIGINT. */
export const EXIT = {
  ok: 0,
  failed: 1,
  partial: 2,
  usage: 64,
  config: 78,
  interrupted: 130,
} as const;

/** The core client's default, for "attempt 2/3" when `--max-retries` is unset. */
const DEFAULT_MAX_RETRIES = 2;

export interface ChatIO {
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
  stdinIsTTY: boolean;
  /** Rejects when `signal` aborts. */
  readStdin(): Promise<string>;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
}

export async function runChat(args: ChatArgs, io: ChatIO): Promise<number> {
  const say = (text: string): void => void io.stderr.write(`stopstream: ${text}\n`);
  let prompt = args.prompt;
  if (prompt === undefined) {
    if (io.stdinIsTTY) {
      say("no prompt: pass it as an argument or pipe it on stdin (see stopstream chat --help)");
      return EXIT.usage;
    }
    try {
      prompt = (await io.readStdin()).trim();
    } catch (error) {
      if (!io.signal.aborted) throw error;
      // Nothing was sent; with --json the caller still gets its one JSON object.
      if (args.json) io.stdout.write(`${new Transcript().endedJSON(error, "interrupted")}\n`);
      return EXIT.interrupted;
    }
    if (prompt === "") {
      say("the prompt on stdin is empty");
      return EXIT.usage;
    }
  }
  let apiKey: string | undefined;
  if (!args.demo) {
    const keyEnv = args.apiKeyEnv ?? PROTOCOL_DEFAULTS[args.protocol].keyEnv;
    apiKey = io.env[keyEnv]?.trim() || undefined;
    // A local server (the relay under `npm start`, Ollama, llama.cpp) rarely wants a key; a
    // variable named explicitly with --api-key-env is always required.
    const baseURL = args.baseURL === undefined ? undefined : new URL(args.baseURL);
    const optional = args.apiKeyEnv === undefined && baseURL !== undefined && isLoopback(baseURL);
    if (apiKey === undefined && !optional) {
      say(
        `no API key: set the environment variable ${keyEnv}` +
          (args.apiKeyEnv === undefined ? " (or name another one with --api-key-env NAME)" : ""),
      );
      return EXIT.config;
    }
    if (
      apiKey !== undefined && baseURL !== undefined && isInsecure(baseURL) && !args.allowInsecure
    ) {
      say(
        `not sending the key in ${keyEnv} over plain http to another machine (anything on the ` +
          "way could read it): use an https URL, or pass --allow-insecure",
      );
      return EXIT.usage;
    }
  }
  const server = args.demo ? await startDemo() : undefined;
  const options: StreamChatOptions = {
    baseURL: server === undefined
      ? args.baseURL ?? PROTOCOL_DEFAULTS[args.protocol].baseURL
      : `${server.url}/v1`,
    body: buildBody(args.protocol, args.model ?? "demo", prompt, args.system),
    protocol: args.protocol,
    signal: io.signal,
  };
  if (apiKey !== undefined) options.apiKey = apiKey;
  if (args.maxRetries !== undefined) options.maxRetries = args.maxRetries;
  if (args.idleTimeoutMs !== undefined) options.timeouts = { idleMs: args.idleTimeoutMs };
  if (args.demoFault !== undefined) options.headers = { [DEMO_FAULT_HEADER]: args.demoFault };
  try {
    return await stream(args, io, options);
  } finally {
    server?.close();
  }
}

/** `--demo`: the demo model on a loopback port, requests numbered as attempts (for faults). */
async function startDemo(): Promise<LoopbackServer> {
  const demo = createDemoUpstream();
  let attempts = 0;
  return await serveLoopback((request) => {
    const headers = new Headers(request.headers);
    headers.set(DEMO_ATTEMPT_HEADER, String(++attempts));
    return demo(new Request(request, { headers }));
  });
}

async function stream(args: ChatArgs, io: ChatIO, options: StreamChatOptions): Promise<number> {
  const terminal = io.stderr.isTTY === true && io.env.TERM !== "dumb";
  const view = new Renderer({
    stdout: io.stdout,
    stderr: io.stderr,
    color: terminal && !("NO_COLOR" in io.env),
    spinner: terminal,
    showText: !args.json,
    showReasoning: args.reasoning,
    maxAttempts: (args.maxRetries ?? DEFAULT_MAX_RETRIES) + 1,
  });
  let chat: ReturnType<typeof streamChat>;
  try {
    chat = streamChat(options);
  } catch (error) {
    // The argument parser catches bad options; what is left here is still a usage problem.
    io.stderr.write(`stopstream: ${(error as Error).message.replace(/^stopstream: /, "")}\n`);
    return EXIT.usage;
  }
  view.start();
  const transcript = new Transcript();
  try {
    let result: ChatResult | undefined;
    for await (const event of chat) {
      view.event(event);
      if (args.json) transcript.event(event);
      if (event.type === "finish") result = event.result;
      // Piped into a reader slower than the model (`| less`): waiting for it holds the client,
      // and through it the upstream, back, instead of buffering the answer in memory.
      if (io.stdout.writableNeedDrain === true) await room(io.stdout, io.signal);
      if (io.stderr.writableNeedDrain === true) await room(io.stderr, io.signal);
    }
    result ??= await chat.result;
    view.finished(result);
    if (args.json) io.stdout.write(`${resultJSON(result)}\n`);
    return EXIT.ok;
  } catch (error) {
    if (isInterruptedError(error) || io.signal.aborted) {
      view.interrupted();
      if (args.json) io.stdout.write(`${transcript.endedJSON(error, "interrupted")}\n`);
      return EXIT.interrupted;
    }
    if (isPartialStreamError(error)) {
      view.partial(error);
      if (args.json) {
        const partial = { ...error.partial, partial: true, error: error.cause as Error };
        io.stdout.write(`${resultJSON(partial)}\n`);
      }
      return EXIT.partial;
    }
    view.failed(error);
    if (args.json) io.stdout.write(`${transcript.endedJSON(error, "failed")}\n`);
    return EXIT.failed;
  } finally {
    view.dispose();
  }
}

/** Resolves once a full `out` drains, or when `signal` aborts. */
function room(out: Output, signal: AbortSignal): Promise<void> {
  if (out.once === undefined || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      signal.removeEventListener("abort", done);
      out.off?.("drain", done);
      resolve();
    };
    out.once!("drain", done);
    signal.addEventListener("abort", done, { once: true });
  });
}
