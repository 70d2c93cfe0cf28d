// What has arrived of an answer: `--json`'s output for a call that ended without a result, since
// the library assembles a result only for a call that finishes.

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
      case "tool-call": {
        const { index, id, name } = event;
        this.toolCalls[index] = { index, id, name, arguments: "" };
        return;
      }
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

  /** `failed`: the call failed before any of its answer could be kept. */
  endedJSON(error: unknown, how: "interrupted" | "failed"): string {
    const attempts = (error as { attempts?: unknown } | null)?.attempts;
    // JSON.stringify leaves out the fields that are `undefined`.
    const output = {
      content: this.content,
      reasoning: this.reasoning,
      toolCalls: this.toolCalls.filter((call) => call !== undefined),
      attempts: typeof attempts === "number" ? attempts : 0,
      usage: this.usage,
      [how]: true,
      error: error instanceof Error ? { name: error.name, message: error.message } : undefined,
    };
    return JSON.stringify(output, null, 2);
  }
}
