// stopstream, awaiting `result` without iterating (the stream drives itself).
import { runIfMain } from "../lib/worker.mjs";
import { answerOf, loadStopstream, optionsOf, protocolSupport } from "../lib/stopstream.mjs";

const { streamChat, unavailable } = await loadStopstream();

const contender = {
  name: "stopstream-result",
  unavailable,
  supports: (workload, task) =>
    task === "ttfd"
      ? "no per-delta hook when awaiting result"
      : protocolSupport(streamChat, workload),
  async consume(ctx) {
    const result = await streamChat(optionsOf(ctx)).result;
    return { text: answerOf(ctx.workload, result) };
  },
};

export default contender;
runIfMain(import.meta.url, contender);
