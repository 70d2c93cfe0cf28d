// stopstream, iterating every event with `for await` and taking the assembled result from the
// `finish` event (no second concatenation in user code).
import { runIfMain } from "../lib/worker.mjs";
import { answerOf, loadStopstream, optionsOf, protocolSupport } from "../lib/stopstream.mjs";

/** The contender over one build's `{ streamChat, unavailable }` (bench/ab.mjs --builds). */
export const contenderOf = ({ streamChat, unavailable }, name = "stopstream-iterate") => ({
  name,
  unavailable,
  supports: (workload) => protocolSupport(streamChat, workload),
  async consume(ctx) {
    const onText = ctx.onText;
    let result;
    for await (const event of streamChat(optionsOf(ctx))) {
      if (event.type === "text") {
        if (onText !== null) onText();
      } else if (event.type === "finish") result = event.result;
    }
    if (result === undefined) return { text: undefined };
    return { text: answerOf(ctx.workload, result) };
  },
});

const contender = contenderOf(await loadStopstream());
export default contender;
runIfMain(import.meta.url, contender);
