// Raw `reader.read()`: counts bytes and nothing else, the physical limit of the delivery.
import { runIfMain } from "../lib/worker.mjs";
import { post } from "../lib/raw_fetch.mjs";

const contender = {
  name: "raw",
  async consume(ctx) {
    const reader = (await post(ctx)).body.getReader();
    let bytes = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.length;
      if (ctx.onText !== null) ctx.onText();
    }
    return { text: null, bytes };
  },
};

export default contender;
runIfMain(import.meta.url, contender);
