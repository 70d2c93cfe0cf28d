/** How much of the answer may wait written for the caller's socket (at most twice this). */
export const WRITE_AHEAD_BYTES = 64 * 1024;

/** workerd's native pipe where there is one: a `pull` per chunk costs its one thread more turns. */
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
