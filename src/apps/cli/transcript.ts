/**
 * What has arrived of an answer: `--json`'s output for an interrupted call, since the library
 * assembles a result only for a call that ends.
 * @module
 */

import type { StreamEvent, Usage } from "../../index.ts";

export class Transcript {
  content = "";
  reasoning = "";
  toolCalls: Array<{ index: number; id: string; name: string; arguments: string }> = [];
  usage: Usage | undefined = undefined;

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

  interruptedJSON(error: unknown): string {
    return this.#endedJSON(error, "interrupted");
  }

  /** For a call that failed before any of its answer could be kept. */
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
