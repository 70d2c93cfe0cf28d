// `@microsoft/fetch-event-source` with `JSON.parse` + concatenation in `onmessage`.
import { fetchEventSource } from "@microsoft/fetch-event-source";
import { runIfMain } from "../lib/worker.mjs";

const contender = {
  name: "fetch-event-source",
  supports: (workload, task) =>
    (workload === "openai" && task === "throughput") || "OpenAI chat throughput only",
  async consume(ctx) {
    // It is a browser library: it calls `window.setTimeout` and `document.removeEventListener`
    // even with `openWhenHidden`, so Node needs these two stand-ins (set here, not at import,
    // so that loading this module never makes another SDK think it runs in a browser).
    globalThis.window ??= globalThis;
    globalThis.document ??= { hidden: false, addEventListener() {}, removeEventListener() {} };
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
};

export default contender;
runIfMain(import.meta.url, contender);
