// The floor: `eventsource-parser` `createParser` + `JSON.parse` + string concatenation, the
// least work any correct client must do (stopstream parses with the same parser).
import { createParser } from "eventsource-parser";
import { runIfMain } from "../lib/worker.mjs";
import { post } from "../lib/raw_fetch.mjs";

function openaiHandler(state, onText) {
  return (event) => {
    if (event.data === "[DONE]") return;
    const choice = JSON.parse(event.data).choices[0];
    if (choice === undefined) return;
    const delta = choice.delta;
    if (delta.content) {
      state.text += delta.content;
      if (onText !== null) onText();
    }
    if (delta.tool_calls !== undefined) {
      for (const call of delta.tool_calls) {
        state.args[call.index] = (state.args[call.index] ?? "") + (call.function?.arguments ?? "");
      }
    }
  };
}

function anthropicHandler(state, onText) {
  return (event) => {
    const data = JSON.parse(event.data);
    if (data.type === "content_block_delta" && data.delta.type === "text_delta") {
      state.text += data.delta.text;
      if (onText !== null) onText();
    }
  };
}

const contender = {
  name: "floor",
  async consume(ctx) {
    const state = { text: "", args: [] };
    const handler = ctx.workload === "anthropic" ? anthropicHandler : openaiHandler;
    const parser = createParser({ onEvent: handler(state, ctx.onText) });
    const reader = (await post(ctx)).body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    return { text: ctx.workload === "tools" ? state.args.join("") : state.text };
  },
};

export default contender;
runIfMain(import.meta.url, contender);
