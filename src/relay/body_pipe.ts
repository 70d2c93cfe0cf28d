/**
 * The pipe a streaming answer of the relay is written into: its readable side is the response
 * body, its writer takes the relay's batches, with room for {@linkcode WRITE_AHEAD_BYTES}. And,
 * since workerd's pipe tells its writer of a cancel only at the next write, what lets the relay's
 * own cancels stop the call at once ({@linkcode stopAnswer}).
 *
 * @module
 */

/**
 * How much of the answer may wait, written, for the caller's socket. With nothing (a high-water
 * mark of 0) every upstream read waited for the previous write to go out, and a 100k-delta
 * stream took twice the control Worker's time; with this, reading and writing overlap. Still
 * bounded: a slow caller holds the upstream back (the relay reads on only below this mark, and
 * one read writes at most one upstream piece, so at most twice this waits).
 */
export const WRITE_AHEAD_BYTES = 64 * 1024;

/**
 * A response body and the writer that fills it: workerd's native pipe where there is one. The
 * relay writes each batch into it from its own loop; a JS `ReadableStream` whose `pull` the
 * runtime calls for every chunk instead costs workerd more turns of its one thread per event,
 * and under 300 paced streams a health check waited about twice as long behind them (at the
 * same CPU; bench/notes.md). Elsewhere (Node, Deno, Bun) a standard `TransformStream` does the
 * same, queueing up to the mark on its writable side.
 *
 * @example
 * ```ts
 * const { body, writer } = bodyPipe();
 * void writer.write(new TextEncoder().encode(": keep-alive\n\n"));
 * return new Response(body, { headers: SSE_HEADERS });
 * ```
 */
export function bodyPipe(): {
  body: ReadableStream<Uint8Array>;
  writer: WritableStreamDefaultWriter;
} {
  const Native = (globalThis as { IdentityTransformStream?: NativePipe }).IdentityTransformStream;
  const pipe = Native !== undefined
    ? new Native({ highWaterMark: WRITE_AHEAD_BYTES })
    : new TransformStream<Uint8Array, Uint8Array>(undefined, {
      highWaterMark: WRITE_AHEAD_BYTES,
      size: (chunk) => chunk.byteLength,
    });
  return { body: pipe.readable, writer: pipe.writable.getWriter() };
}

/** workerd's `IdentityTransformStream` (not in TypeScript's DOM types). */
type NativePipe = new (strategy: { highWaterMark: number }) => TransformStream<
  Uint8Array,
  Uint8Array
>;

/** Each streaming answer's body, and what stops its call when the relay itself cancels it. */
const stoppers = new WeakMap<ReadableStream<Uint8Array>, (reason: unknown) => void>();

/**
 * Stops the call behind a streaming answer whose body the relay cancels itself (the demo's
 * caller-drop fault): workerd's native pipe tells the writer of a cancel only at its next write,
 * which a silent upstream may not give it for a while. A caller's disconnect needs nothing:
 * workerd ends the request, subrequests included.
 *
 * @example
 * ```ts
 * void reader.cancel(reason);
 * stopAnswer(body, reason);
 * ```
 */
export function stopAnswer(body: ReadableStream<Uint8Array>, reason: unknown): void {
  stoppers.get(body)?.(reason);
}

/**
 * Registers what stops the call behind `body` (a {@linkcode bodyPipe}'s) for
 * {@linkcode stopAnswer}.
 *
 * @example
 * ```ts
 * onRelayCancel(body, (reason) => call.abort.abort(reason));
 * ```
 */
export function onRelayCancel(
  body: ReadableStream<Uint8Array>,
  stop: (reason: unknown) => void,
): void {
  stoppers.set(body, stop);
}
