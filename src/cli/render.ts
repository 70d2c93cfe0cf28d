/**
 * The terminal view of one chat call: text on stdout as it arrives, everything else on stderr
 * (dimmed reasoning, tool calls, status lines, a spinner while waiting, the summary). Escape
 * codes only ever go to a terminal.
 *
 * @module
 */

import type { ChatResult, FinishReason, PartialStreamError, StreamEvent, Usage } from "../index.ts";
import {
  describeFailure,
  failureLine,
  formatSeconds,
  retryLine,
  stripControls,
  summaryLine,
} from "./format.ts";

/**
 * A place to write to: `process.stdout`, `process.stderr`, or a test double.
 *
 * @example
 * ```ts
 * const out: Output = { write: (text) => (chunks.push(text), true), isTTY: false };
 * ```
 */
export interface Output {
  write(text: string): boolean;
  isTTY?: boolean;
  /** `true` while what was written waits for a slow reader (a `Writable`'s flag). */
  writableNeedDrain?: boolean;
  once?(event: "drain", listener: () => void): unknown;
  off?(event: "drain", listener: () => void): unknown;
}

/**
 * Options of {@linkcode Renderer}.
 *
 * @example
 * ```ts
 * const options: RenderOptions = { stdout, stderr, color: false, spinner: false,
 *   showText: true, showReasoning: true, maxAttempts: 3 };
 * ```
 */
export interface RenderOptions {
  stdout: Output;
  stderr: Output;
  /** Whether stderr may carry colour codes (a terminal, and `NO_COLOR` unset). */
  color: boolean;
  /** Whether to animate a spinner on stderr while waiting (only for a terminal). */
  spinner: boolean;
  /** `false` with `--json`: stdout is kept for the JSON result. */
  showText: boolean;
  showReasoning: boolean;
  /** Attempts allowed in all (`maxRetries + 1`), for "attempt 2/3". */
  maxAttempts: number;
  /** Clock, for tests. Default `performance.now`. */
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

/**
 * Renders the events of one call. Call {@linkcode Renderer.start} first and exactly one of
 * `finished`, `partial`, `interrupted` or `failed` at the end.
 *
 * @example
 * ```ts
 * const view = new Renderer({ stdout: process.stdout, stderr: process.stderr, color: false,
 *   spinner: false, showText: true, showReasoning: true, maxAttempts: 3 });
 * view.start();
 * for await (const event of stream) view.event(event);
 * ```
 */
export class Renderer {
  #o: RenderOptions;
  #now: () => number;
  #startedAt = 0;
  #firstTokenAt: number | undefined;
  #attempts = 1;
  #usage: Usage | undefined;
  #textChars = 0;
  /** The last text written to stdout did not end with a newline. */
  #textMidLine = false;
  /** Reasoning was written to stderr and its line is not finished. */
  #reasoningMidLine = false;
  #tools = new Map<number, { name: string; args: string }>();
  #spinnerTimer: ReturnType<typeof setInterval> | undefined;
  #spinnerShown = false;
  #frame = 0;

  constructor(options: RenderOptions) {
    this.#o = options;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Starts the clock and, on a terminal, the "waiting for the first token" spinner. */
  start(): void {
    this.#startedAt = this.#now();
    if (!this.#o.spinner) return;
    this.#drawSpinner();
    this.#spinnerTimer = setInterval(() => this.#drawSpinner(), 100);
    // The spinner must never be what keeps the process alive.
    this.#spinnerTimer.unref?.();
  }

  /** Shows one stream event. */
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
        this.#flushTools();
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
        return this.#status(
          retryLine(error, delayMs, attempt, this.#o.maxAttempts, resuming),
          YELLOW,
        );
      }
      case "fallback":
        return this.#status(
          `${describeFailure(event.error)}, switching to fallback ${event.index}`,
          YELLOW,
        );
      case "usage":
        this.#usage = event.usage;
        return;
      case "finish":
        return;
    }
  }

  /** The call succeeded: end the text line on a terminal and print the summary. */
  finished(result: ChatResult): void {
    this.#attempts = result.attempts;
    this.#usage = result.usage ?? this.#usage;
    this.#end();
    this.#line(this.#summary(result.finishReason), DIM);
  }

  /** The stream failed after output: say so, keeping what was printed. */
  partial(error: PartialStreamError): void {
    this.#attempts = error.partial.attempts;
    this.#usage = error.partial.usage ?? this.#usage;
    this.#end();
    const kept = this.#o.showText ? this.#textChars : error.partial.content.length;
    this.#line(`${error.message} (${kept} characters kept)`, RED);
    this.#line(this.#summary(), DIM);
  }

  /** The user stopped the call. */
  interrupted(): void {
    this.#end();
    const elapsed = formatSeconds(this.#now() - this.#startedAt);
    this.#line(`interrupted after ${elapsed} (${this.#textChars} characters kept)`, YELLOW);
  }

  /** The call failed before any output: the error's own sentence. */
  failed(error: unknown): void {
    this.#end();
    this.#line(failureLine(error), RED);
  }

  /** Stops the spinner timer; safe to call more than once. */
  dispose(): void {
    if (this.#spinnerTimer !== undefined) clearInterval(this.#spinnerTimer);
    this.#spinnerTimer = undefined;
    this.#clearSpinner();
  }

  #text(text: string): void {
    this.#content();
    this.#flushTools();
    if (!this.#o.showText || text === "") return;
    this.#endReasoningLine();
    this.#o.stdout.write(this.#o.stdout.isTTY === true ? stripControls(text) : text);
    this.#textChars += text.length;
    this.#textMidLine = !text.endsWith("\n");
  }

  #reasoning(text: string): void {
    this.#content();
    this.#flushTools();
    if (!this.#o.showReasoning || !this.#o.showText || text === "") return;
    this.#endTextLine();
    const shown = this.#o.stderr.isTTY === true ? stripControls(text) : text;
    this.#o.stderr.write(this.#o.color ? `${DIM}${shown}${UNDIM}` : shown);
    this.#reasoningMidLine = !text.endsWith("\n");
  }

  /** First content: the wait is over. */
  #content(): void {
    if (this.#firstTokenAt !== undefined) return;
    this.#firstTokenAt = this.#now();
    this.dispose();
  }

  #flushTools(): void {
    if (this.#tools.size === 0) return;
    const calls = [...this.#tools.values()];
    this.#tools.clear();
    if (!this.#o.showText) return;
    for (const call of calls) this.#line(`tool call: ${call.name}(${call.args})`, CYAN);
  }

  #status(text: string, color: string): void {
    this.#line(text, color);
    if (this.#spinnerTimer !== undefined) this.#drawSpinner();
  }

  /** Writes one full line on stderr, starting on a fresh line. */
  #line(text: string, color: string): void {
    this.#clearSpinner();
    this.#endReasoningLine();
    this.#endTextLine();
    const safe = stripControls(text);
    const close = color === DIM ? UNDIM : RESET_FG;
    this.#o.stderr.write(this.#o.color ? `${color}${safe}${close}\n` : `${safe}\n`);
  }

  /** The end of the call: stop waiting, show pending tool calls, finish the text line. */
  #end(): void {
    this.dispose();
    this.#flushTools();
    // A shell prompt glued to the answer is ugly on a terminal; a pipe gets the exact text.
    if (this.#textMidLine && this.#o.stdout.isTTY === true) {
      this.#o.stdout.write("\n");
      this.#textMidLine = false;
    }
  }

  #summary(finishReason?: FinishReason): string {
    return summaryLine({
      ...(finishReason === undefined ? {} : { finishReason }),
      elapsedMs: this.#now() - this.#startedAt,
      firstTokenMs: this.#firstTokenAt === undefined
        ? undefined
        : this.#firstTokenAt - this.#startedAt,
      usage: this.#usage,
      attempts: this.#attempts,
    });
  }

  /** Finishes a dimmed reasoning line on stderr, if one is open. */
  #endReasoningLine(): void {
    if (!this.#reasoningMidLine) return;
    this.#o.stderr.write(this.#o.color ? `${UNDIM}\n` : "\n");
    this.#reasoningMidLine = false;
  }

  /**
   * Finishes an open text line before stderr output, when stdout and stderr are both
   * terminals (presumably the same screen); a pipe gets the exact text.
   */
  #endTextLine(): void {
    if (!this.#textMidLine || this.#o.stdout.isTTY !== true || this.#o.stderr.isTTY !== true) {
      return;
    }
    this.#o.stdout.write("\n");
    this.#textMidLine = false;
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
