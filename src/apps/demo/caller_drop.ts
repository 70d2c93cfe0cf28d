// The demo's `caller-drop-after=N` fault, played in front of the relay: the caller's stream is
// cut after N events, and the request's signal fires, as for any caller gone.

import type { MiddlewareHandler } from "hono";
import { noop } from "../../core/constants.ts";
import { parseDemoFaults } from "./faults.ts";
import { DEMO_FAULT_HEADER } from "./upstream.ts";

const DATA_LINE = /(?:^|\n)data:/;

/** Middleware for the relay's chat route: applies the fault to the streaming answer. */
export function callerDrop(): MiddlewareHandler {
  return async (c, next) => {
    let after: number | undefined;
    try {
      after = parseDemoFaults(c.req.header(DEMO_FAULT_HEADER) ?? "", 1).callerDropAfter;
    } catch {
      // A bad spec is the demo's 400 to give, not this middleware's.
    }
    if (after === undefined) return next();
    // What the relay reads as "the caller left" is the request's signal: this one fires too.
    const cut = new AbortController();
    c.req.raw = new Request(c.req.raw, { signal: AbortSignal.any([c.req.raw.signal, cut.signal]) });
    await next();
    const response = c.res;
    const sse = response.headers.get("content-type")?.startsWith("text/event-stream") === true;
    if (!sse || response.body === null) return;
    c.res = new Response(cutAfterEvents(response.body, after, cut), response);
  };
}

/** Errors after the `events`-th event (comments do not count): the chunked body never ends. */
function cutAfterEvents(
  body: ReadableStream<Uint8Array>,
  events: number,
  cut: AbortController,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let seen = 0;
  let tail = "";
  let dropped: Error | undefined;
  const drop = (): void => {
    dropped = new Error("the relay dropped its caller (demo fault)");
    cut.abort(dropped);
    reader.cancel(dropped).catch(noop);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // The error comes on the read after the last event: an error empties the queue.
      if (dropped !== undefined) return controller.error(dropped);
      const { done: ended, value } = await reader.read();
      if (ended) return controller.close();
      const chunk = decoder.decode(value, { stream: true });
      const text = tail + chunk;
      let start = 0;
      for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n", start)) {
        const block = text.slice(start, end);
        start = end + 2;
        if (DATA_LINE.test(block) && ++seen === events) {
          drop();
          return controller.enqueue(new TextEncoder().encode(chunk.slice(0, start - tail.length)));
        }
      }
      tail = text.slice(start);
      controller.enqueue(value);
    },
    cancel: drop,
  }, { highWaterMark: 0 });
}
