// The demo's `caller-drop-after=N` fault, played in front of the relay: the caller's stream is
// cut after N events, as a network that goes away would cut it. The relay learns of it as of
// any caller gone: the request's signal fires (a resumable stream runs on; any other stops).

import type { MiddlewareHandler } from "hono";
import { noop } from "../../core/constants.ts";
import { DEMO_FAULT_HEADER, parseDemoFaults } from "./upstream.ts";

const DATA_LINE = /(?:^|\n)data:/;

/** Middleware for the relay's chat route: applies the fault to the streaming answer. */
export function callerDrop(): MiddlewareHandler {
  return async (c, next) => {
    const after = callerDropAfter(c.req.header(DEMO_FAULT_HEADER));
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

/** The fault's event count, if the spec asks for it (a bad spec is the demo's 400 to give). */
function callerDropAfter(spec: string | undefined): number | undefined {
  if (spec === undefined) return undefined;
  try {
    return parseDemoFaults(spec, 1).callerDropAfter;
  } catch {
    return undefined;
  }
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
  let done = false;
  const drop = (): void => {
    const reason = new Error("the relay dropped its caller (demo fault)");
    cut.abort(reason);
    reader.cancel(reason).catch(noop);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // The error comes on the read after the last event: an error empties the queue.
      if (done) return controller.error(new Error("the relay dropped its caller (demo fault)"));
      const { done: ended, value } = await reader.read();
      if (ended) return controller.close();
      const chunk = decoder.decode(value, { stream: true });
      const text = tail + chunk;
      let start = 0;
      for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n", start)) {
        const block = text.slice(start, end);
        start = end + 2;
        if (DATA_LINE.test(block) && ++seen === events) {
          done = true;
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
