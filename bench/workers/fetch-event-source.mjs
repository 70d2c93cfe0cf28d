// `@microsoft/fetch-event-source` with `JSON.parse` + concatenation in `onmessage`.
import { fetchEventSource } from "@microsoft/fetch-event-source";
import { runWorker } from "../lib/worker.mjs";

// It is a browser library: it calls `window.setTimeout` and `document.removeEventListener`
// even with `openWhenHidden`, so Node needs these two stand-ins.
globalThis.window ??= globalThis;
globalThis.document ??= { hidden: false, addEventListener() {}, removeEventListener() {} };

runWorker({
  name: "fetch-event-source",
  supports: (workload, task) =>
    (workload === "openai" && task === "throughput") || "OpenAI chat throughput only",
  async consume(ctx) {
    let text = "";
    await fetchEventSource(ctx.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...ctx.body, stream: true }),
      fetch: ctx.fetch,
      signal: ctx.signal,
      openWhenHidden: true,
      onmessage(event) {
        if (event.data === "[DONE]") return;
        const content = JSON.parse(event.data).choices[0]?.delta?.content;
        if (content) text += content;
      },
      onerror(error) {
        throw error;
      },
    });
    return { text };
  },
});
