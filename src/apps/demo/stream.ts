// The demo upstream's SSE body: paces a reply plan word by word and injects mid-stream faults.

import type { DemoFaults } from "./faults.ts";
import type { DemoPlan } from "./reply.ts";
import type { DemoWire } from "./wire.ts";

export interface DemoStreamInput {
  plan: DemoPlan;
  faults: DemoFaults;
  model: string;
  wordDelayMs: number;
  includeUsage: boolean;
  attempt: number;
  /** Ms since the epoch: the body is cut then if it has not ended, whatever the timers. */
  endBy?: number | undefined;
  /** Aborts the stream like a client disconnect (e.g. a Worker's `request.signal`). */
  signal?: AbortSignal | undefined;
  onCancel?: ((info: { attempt: number; wordsSent: number }) => void) | undefined;
  /** Another protocol's wire (wire.ts); OpenAI chat chunks by default. */
  wire?: DemoWire | undefined;
}

const DONE = "data: [DONE]\n\n";
const PING = ": ping\n\n";
const LOST = 'data: {"error":{"message":"Network connection lost.","type":"server_error"}}\n\n';

/** `drop-after` errors the stream, so that servers cut the connection. */
export function createDemoStream(input: DemoStreamInput): ReadableStream<Uint8Array> {
  const { plan, faults, signal, onCancel, attempt } = input;
  const encoder = new TextEncoder();
  const created = Math.floor(Date.now() / 1000);
  const head = { id: plan.id, object: "chat.completion.chunk", created, model: input.model };
  const delay = faults.wordDelayMs ?? input.wordDelayMs;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let finished = false;
  let wordsSent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  let ping: ReturnType<typeof setInterval> | undefined;
  let limit: ReturnType<typeof setTimeout> | undefined;

  const send = (text: string): void => {
    if (!finished) controller.enqueue(encoder.encode(text));
  };
  const event = (fields: { choices: unknown[]; usage?: unknown }): string =>
    `data: ${JSON.stringify({ ...head, ...fields })}\n\n`;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null): string =>
    event({ choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });
  const wire: DemoWire = input.wire ?? {
    delta: (delta) => chunk(delta, null),
    finish: ({ finishReason, usage }) =>
      chunk({}, finishReason) + (input.includeUsage ? event({ choices: [], usage }) : "") + DONE,
    lost: LOST,
  };
  const finish = (): void => {
    finished = true;
    clearTimeout(timer);
    clearTimeout(limit);
    clearInterval(ping);
    signal?.removeEventListener("abort", onAbort);
    // Releasing a pending sleep lets the loop see `finished` and return instead of hanging.
    wake?.();
  };
  const fail = (error: unknown): void => {
    if (finished) return;
    finish();
    controller.error(error);
  };
  const close = (last: string): void => {
    send(last);
    finish();
    controller.close();
  };
  const cancelled = (): void => {
    if (finished) return;
    finish();
    onCancel?.({ attempt, wordsSent });
  };
  function onAbort(): void {
    if (finished) return;
    cancelled();
    try {
      controller.error(signal?.reason);
    } catch {
      // Already closed or errored by the reader: nothing left to tell it.
    }
  }
  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      wake = resolve;
      timer = setTimeout(() => {
        wake = undefined;
        resolve();
      }, ms);
    });
  const at = (limit: number | undefined, i: number): boolean =>
    limit !== undefined && Math.min(limit, plan.deltas.length) === i;

  const run = async (): Promise<void> => {
    const { deltas } = plan;
    for (let i = 0; i <= deltas.length; i++) {
      if (i < deltas.length) await sleep(delay);
      if (finished) return;
      if (at(faults.dropAfter, i)) {
        return fail(new Error(`demo upstream dropped the connection after ${i} words`));
      }
      if (at(faults.errorEventAfter, i)) return close(wire.lost);
      if (faults.stallMs !== undefined && at(faults.stallAfter ?? 1, i)) {
        await sleep(faults.stallMs);
        if (finished) return;
      }
      if (i === deltas.length) break;
      send(wire.delta(deltas[i] as Record<string, unknown>));
      wordsSent++;
    }
    close(wire.finish(plan));
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      if (faults.pingMs !== undefined) ping = setInterval(send, faults.pingMs, PING);
      if (input.endBy !== undefined) {
        limit = setTimeout(() => {
          fail(new Error("demo upstream: the response time limit was reached"));
        }, Math.max(0, input.endBy - Date.now()));
      }
      run().catch(fail);
    },
    cancel: cancelled,
  });
}
