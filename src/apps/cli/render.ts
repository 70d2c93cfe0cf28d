// The terminal view of one chat call: the answer on stdout, everything else on stderr. Escape
// codes only ever go to a terminal.

import type {
  ChatResult,
  FinishReason,
  PartialStreamError,
  StreamEvent,
  Usage,
} from "../../index.ts";
import {
  describeFailure,
  failureLine,
  formatSeconds,
  retryLine,
  stripControls,
  summaryLine,
} from "./format.ts";

export interface Output {
  write(text: string): boolean;
  isTTY?: boolean;
  writableNeedDrain?: boolean;
  once?(event: "drain", listener: () => void): unknown;
  off?(event: "drain", listener: () => void): unknown;
}

export interface RenderOptions {
  stdout: Output;
  stderr: Output;
  color: boolean;
  spinner: boolean;
  /** `false` with `--json`: stdout is kept for the JSON result. */
  showText: boolean;
  showReasoning: boolean;
  /** `maxRetries + 1`. */
  maxAttempts: number;
  /** For tests; default `performance.now`. */
  now?: () => number;
}

const DIM = "\u001b[2m";
const UNDIM = "\u001b[22m";
const YELLOW = "\u001b[33m";
const RED = "\u001b[31m";
const CYAN = "\u001b[36m";
const RESET_FG = "\u001b[39m";
const CLEAR_LINE = "\r\u001b[2K";
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Call `start` first and exactly one of `finished`, `partial`, `interrupted` or `failed` last. */
export class Renderer {
  #o: RenderOptions;
  #now: () => number;
  #startedAt = 0;
  #firstTokenAt: number | undefined;
  #attempts = 1;
  #usage: Usage | undefined;
  #textChars = 0;
  #textMidLine = false;
  #reasoningMidLine = false;
  #tools = new Map<number, { name: string; args: string }>();
  #spinnerTimer: ReturnType<typeof setInterval> | undefined;
  #spinnerShown = false;
  #frame = 0;

  constructor(options: RenderOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => performance.now());
  }

  start(): void {
    this.#startedAt = this.#now();
    if (!this.#o.spinner) return;
    this.#drawSpinner();
    this.#spinnerTimer = setInterval(() => this.#drawSpinner(), 100);
    // The spinner must never be what keeps the process alive.
    this.#spinnerTimer.unref?.();
  }

  event(event: StreamEvent): void {
    switch (event.type) {
      case "open":
        this.#attempts = event.attempt;
        return;
      case "text":
        return this.#text(event.text);
      case "reasoning":
        return this.#reasoning(event.text);
      case "tool-call":
        this.#content();
        this.#tools.set(event.index, { name: event.name, args: "" });
        return;
      case "tool-call-delta": {
        const call = this.#tools.get(event.index);
        if (call !== undefined) call.args += event.argumentsDelta;
        return;
      }
      case "retry":
      case "resume": {
        this.#attempts = event.attempt;
        const { error, delayMs, attempt } = event;
        const resuming = event.type === "resume";
        return this.#status(retryLine(error, delayMs, attempt, this.#o.maxAttempts, resuming));
      }
      case "fallback": {
        const failure = describeFailure(event.error);
        return this.#status(`${failure}, switching to fallback ${event.index}`);
      }
      case "usage":
        this.#usage = event.usage;
        return;
    }
  }

  finished(result: ChatResult): void {
    this.#end(result);
    this.#line(this.#summary(result.finishReason), DIM);
  }

  /** Failed after output: what was printed stays. */
  partial(error: PartialStreamError): void {
    this.#end(error.partial);
    const kept = this.#o.showText ? this.#textChars : error.partial.content.length;
    this.#line(`${error.message} (${kept} characters kept)`, RED);
    this.#line(this.#summary(), DIM);
  }

  interrupted(): void {
    this.#end();
    const elapsed = formatSeconds(this.#now() - this.#startedAt);
    this.#line(`interrupted after ${elapsed} (${this.#textChars} characters kept)`, YELLOW);
  }

  /** Failed before any output. */
  failed(error: unknown): void {
    this.#end();
    this.#line(failureLine(error), RED);
  }

  /** Safe to call more than once. */
  dispose(): void {
    if (this.#spinnerTimer !== undefined) clearInterval(this.#spinnerTimer);
    this.#spinnerTimer = undefined;
    this.#clearSpinner();
  }

  #text(text: string): void {
    this.#content();
    if (!this.#o.showText || text === "") return;
    this.#endReasoningLine();
    this.#o.stdout.write(this.#o.stdout.isTTY === true ? stripControls(text) : text);
    this.#textChars += text.length;
    this.#textMidLine = !text.endsWith("\n");
  }

  #reasoning(text: string): void {
    this.#content();
    if (!this.#o.showReasoning || !this.#o.showText || text === "") return;
    this.#endTextLine();
    const shown = this.#o.stderr.isTTY === true ? stripControls(text) : text;
    this.#o.stderr.write(this.#o.color ? `${DIM}${shown}${UNDIM}` : shown);
    this.#reasoningMidLine = !text.endsWith("\n");
  }

  /** Any new output completes the tool calls before it: they are printed now. */
  #content(): void {
    if (this.#firstTokenAt === undefined) {
      this.#firstTokenAt = this.#now();
      this.dispose();
    }
    this.#flushTools();
  }

  #flushTools(): void {
    if (this.#tools.size === 0) return;
    const calls = [...this.#tools.values()];
    this.#tools.clear();
    if (!this.#o.showText) return;
    for (const call of calls) this.#line(`tool call: ${call.name}(${call.args})`, CYAN);
  }

  #status(text: string): void {
    this.#line(text, YELLOW);
    if (this.#spinnerTimer !== undefined) this.#drawSpinner();
  }

  #line(text: string, color: string): void {
    this.#clearSpinner();
    this.#endReasoningLine();
    this.#endTextLine();
    const safe = stripControls(text);
    const close = color === DIM ? UNDIM : RESET_FG;
    this.#o.stderr.write(this.#o.color ? `${color}${safe}${close}\n` : `${safe}\n`);
  }

  #end(outcome?: ChatResult): void {
    if (outcome !== undefined) {
      this.#attempts = outcome.attempts;
      this.#usage = outcome.usage ?? this.#usage;
    }
    this.dispose();
    this.#flushTools();
    // A shell prompt glued to the answer is ugly on a terminal; a pipe gets the exact text.
    if (this.#textMidLine && this.#o.stdout.isTTY === true) {
      this.#o.stdout.write("\n");
      this.#textMidLine = false;
    }
  }

  #summary(finishReason?: FinishReason): string {
    const first = this.#firstTokenAt;
    return summaryLine({
      finishReason,
      elapsedMs: this.#now() - this.#startedAt,
      firstTokenMs: first === undefined ? undefined : first - this.#startedAt,
      usage: this.#usage,
      attempts: this.#attempts,
    });
  }

  #endReasoningLine(): void {
    if (!this.#reasoningMidLine) return;
    this.#o.stderr.write(this.#o.color ? `${UNDIM}\n` : "\n");
    this.#reasoningMidLine = false;
  }

  /** Only when both are terminals (presumably one screen); a pipe gets the exact text. */
  #endTextLine(): void {
    if (this.#textMidLine && this.#o.stdout.isTTY === true && this.#o.stderr.isTTY === true) {
      this.#o.stdout.write("\n");
      this.#textMidLine = false;
    }
  }

  #drawSpinner(): void {
    const frame = FRAMES[this.#frame++ % FRAMES.length];
    const elapsed = formatSeconds(this.#now() - this.#startedAt);
    const text = `${frame} waiting for the first token… ${elapsed}`;
    this.#o.stderr.write(`${CLEAR_LINE}${this.#o.color ? `${DIM}${text}${UNDIM}` : text}`);
    this.#spinnerShown = true;
  }

  #clearSpinner(): void {
    if (!this.#spinnerShown) return;
    this.#o.stderr.write(CLEAR_LINE);
    this.#spinnerShown = false;
  }
}
