// Raw `reader.read()` + `TextDecoder`: the cost of turning bytes into text, no parsing.
import { runIfMain } from "../lib/worker.mjs";
import { post } from "../lib/raw_fetch.mjs";

const contender = {
  name: "raw-decode",
  supports: (_workload, task) => task === "throughput" || "throughput only",
  async consume(ctx) {
    const reader = (await post(ctx)).body.getReader();
    const decoder = new TextDecoder();
    let chars = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chars += decoder.decode(value, { stream: true }).length;
    }
    chars += decoder.decode().length;
    return { text: null, chars };
  },
};

export default contender;
runIfMain(import.meta.url, contender);
