// The official `openai` SDK: `chat.completions.create({ stream: true })`, concatenating deltas.
import OpenAI from "openai";
import { runIfMain } from "../lib/worker.mjs";

const contender = {
  name: "openai-sdk",
  supports: (workload) => workload === "openai" || "OpenAI chat text stream only",
  async consume(ctx) {
    const client = new OpenAI({ baseURL: ctx.baseURL, apiKey: "x", fetch: ctx.fetch });
    const options = ctx.signal === undefined ? undefined : { signal: ctx.signal };
    const stream = await client.chat.completions.create(
      { ...ctx.body, stream: true, stream_options: { include_usage: true } },
      options,
    );
    const onText = ctx.onText;
    let text = "";
    for await (const chunk of stream) {
      const content = chunk.choices[0]?.delta?.content;
      if (content) {
        text += content;
        if (onText !== null) onText();
      }
    }
    return { text };
  },
};

export default contender;
runIfMain(import.meta.url, contender);
