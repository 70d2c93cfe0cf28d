import type { MiddlewareHandler } from "hono";
import { DEMO_FAULT_HEADER, parseDemoFaults } from "./upstream.ts";
import { stopAnswer } from "../../relay/body_pipe.ts";

const DATA_LINE = /(?:^|\n)data:/;

/** The demo's `caller-drop-after=N` fault: the relay cuts its own caller off after N events. */
export function callerDrop(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const after = callerDropAfter(c.req.header(DEMO_FAULT_HEADER));
    const response = c.res;
    const sse = response.headers.get("content-type")?.startsWith("text/event-stream") === true;
    if (after === undefined || !sse || response.body === null) return;
    c.res = new Response(cutAfterEvents(response.body, after), response);
  };
}

/** The fault's event count, if the spec asks for it (a bad spec was answered already). */
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
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let seen = 0;
  let tail = "";
  let cut = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      // The error comes on the read after the last event: an error empties the queue.
      if (cut) return controller.error(new Error(`the relay dropped its caller (demo fault)`));
      const { done, value } = await reader.read();
      if (done) return controller.close();
      const chunk = decoder.decode(value, { stream: true });
      const text = tail + chunk;
      let start = 0;
      for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n", start)) {
        const block = text.slice(start, end);
        start = end + 2;
        if (DATA_LINE.test(block) && ++seen === events) {
          cut = true;
          const reason = new Error("the relay dropped its caller (demo fault)");
          void reader.cancel(reason).catch(noop);
          stopAnswer(body, reason);
          return controller.enqueue(new TextEncoder().encode(chunk.slice(0, start - tail.length)));
        }
      }
      tail = text.slice(start);
      controller.enqueue(value);
    },
    cancel(reason) {
      stopAnswer(body, reason);
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

const noop = (): void => {};
