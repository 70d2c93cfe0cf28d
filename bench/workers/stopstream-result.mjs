// stopstream, awaiting `result` without iterating (the stream drives itself).
import { runIfMain } from "../lib/worker.mjs";
import { answerOf, loadStopstream, optionsOf, protocolSupport } from "../lib/stopstream.mjs";

/** The contender over one build's `{ streamChat, unavailable }` (bench/ab.mjs --builds). */
export const contenderOf = ({ streamChat, unavailable }, name = "stopstream-result") => ({
  name,
  unavailable,
  supports: (workload, task) =>
    task === "ttfd"
      ? "no per-delta hook when awaiting result"
      : protocolSupport(streamChat, workload),
  async consume(ctx) {
    const result = await streamChat(optionsOf(ctx)).result;
    return { text: answerOf(ctx.workload, result) };
  },
});

const contender = contenderOf(await loadStopstream());
export default contender;
runIfMain(import.meta.url, contender);
