// Loads the built package: the snapshot run.mjs took (STOPSTREAM_DIST), else dist/. Until
// `npm run build` has produced it, the stopstream contenders report themselves unavailable
// instead of failing the whole run.

/**
 * `{ streamChat }` from dist/index.js (or from `url`: bench/ab.mjs --builds), or
 * `{ unavailable: reason }`.
 */
export async function loadStopstream(
  url = process.env.STOPSTREAM_DIST ?? new URL("../../dist/index.js", import.meta.url).href,
) {
  try {
    const mod = await import(url);
    if (typeof mod.streamChat !== "function") {
      return { unavailable: "dist/index.js has no streamChat" };
    }
    return mod;
  } catch (error) {
    return { unavailable: `dist/index.js not importable (run npm run build): ${error.message}` };
  }
}

/** What a workload's answer is: the text, or every tool call's arguments in index order. */
export function answerOf(workload, result) {
  if (workload !== "tools") return result.content;
  let text = "";
  for (const call of [...result.toolCalls].sort((a, b) => a.index - b.index)) {
    text += call.arguments;
  }
  return text;
}

/** stopstream options for a consume context. */
export function optionsOf(ctx) {
  const options = { baseURL: ctx.baseURL, body: ctx.body, fetch: ctx.fetch };
  if (ctx.signal !== undefined) options.signal = ctx.signal;
  if (ctx.workload === "anthropic") options.protocol = "anthropic-messages";
  return options;
}

/**
 * Whether the built client speaks the workload's protocol: `true`, or why not. An adapter that
 * has not landed yet makes streamChat throw (or reject) a TypeError naming the protocol.
 */
export async function protocolSupport(streamChat, workload) {
  if (workload !== "anthropic") return true;
  const probe = { baseURL: "http://bench.invalid", body: {}, protocol: "anthropic-messages" };
  probe.fetch = () => Promise.reject(new Error("probe"));
  probe.maxRetries = 0;
  try {
    await streamChat(probe).result;
  } catch (error) {
    if (error instanceof TypeError && /protocol/.test(error.message)) {
      return `protocol "anthropic-messages" not in this build (${error.message})`;
    }
  }
  return true;
}
