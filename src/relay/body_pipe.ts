/**
 * The pipe a streaming answer of the relay is written into: its readable side is the response
 * body, its writer takes the relay's batches, with room for {@linkcode WRITE_AHEAD_BYTES}.
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
