/**
 * What has arrived of an answer, assembled from its events: the CLI's `--json` output when a
 * call is interrupted, since the library assembles a result only for a call that ends.
 *
 * @module
 */

import type { StreamEvent, Usage } from "../index.ts";

/**
 * Collects text, reasoning, tool calls and usage as events arrive.
 *
 * @example
 * ```ts
 * const transcript = new Transcript();
 * for await (const event of stream) transcript.event(event);
 * ```
 */
export class Transcript {
  content = "";
  reasoning = "";
  toolCalls: Array<{ index: number; id: string; name: string; arguments: string }> = [];
  usage: Usage | undefined = undefined;

  /** Takes one event into account. */
  event(event: StreamEvent): void {
    switch (event.type) {
      case "text":
        this.content += event.text;
        return;
      case "reasoning":
        this.reasoning += event.text;
        return;
      case "tool-call":
        this.toolCalls[event.index] = {
          index: event.index,
          id: event.id,
          name: event.name,
          arguments: "",
        };
        return;
      case "tool-call-delta": {
        const call = this.toolCalls[event.index];
        if (call !== undefined) call.arguments += event.argumentsDelta;
        return;
      }
      case "usage":
        this.usage = event.usage;
        return;
    }
  }

  /**
   * The JSON object `--json` prints for an interrupted call: what arrived, the number of
   * requests made, `"interrupted": true` and the error.
   *
   * @example
   * ```ts
   * JSON.parse(transcript.interruptedJSON(error)).interrupted; // true
   * ```
   */
  interruptedJSON(error: unknown): string {
    return this.#endedJSON(error, "interrupted");
  }

  /**
   * The JSON object `--json` prints for a call that failed before any of its answer could be
   * kept: what arrived (usually nothing), the number of requests made, `"failed": true` and the
   * error.
   *
   * @example
   * ```ts
   * JSON.parse(transcript.failedJSON(error)).failed; // true
   * ```
   */
  failedJSON(error: unknown): string {
    return this.#endedJSON(error, "failed");
  }

  #endedJSON(error: unknown, how: "interrupted" | "failed"): string {
    const attempts = (error as { attempts?: unknown } | null)?.attempts;
    const output: Record<string, unknown> = {
      content: this.content,
      reasoning: this.reasoning,
      toolCalls: this.toolCalls.filter((call) => call !== undefined),
      attempts: typeof attempts === "number" ? attempts : 0,
    };
    if (this.usage !== undefined) output.usage = this.usage;
    output[how] = true;
    if (error instanceof Error) output.error = { name: error.name, message: error.message };
    return JSON.stringify(output, null, 2);
  }
}
