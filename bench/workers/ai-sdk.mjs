// The AI SDK: `streamText` with `@ai-sdk/openai-compatible`, consuming `textStream`.
import { streamText } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { runIfMain } from "../lib/worker.mjs";

const contender = {
  name: "ai-sdk",
  supports: (workload) => workload === "openai" || "OpenAI chat text stream only",
  async consume(ctx) {
    const provider = createOpenAICompatible({
      name: "bench",
      baseURL: ctx.baseURL,
      apiKey: "x",
      fetch: ctx.fetch,
      includeUsage: true,
    });
    const result = streamText({
      model: provider("gpt-4o-mini"),
      messages: ctx.body.messages,
      abortSignal: ctx.signal,
      // The default logs every error to stderr; how the loop ends is what we record.
      onError: () => {},
    });
    const onText = ctx.onText;
    let text = "";
    for await (const delta of result.textStream) {
      text += delta;
      if (onText !== null) onText();
    }
    return { text };
  },
};

export default contender;
runIfMain(import.meta.url, contender);
