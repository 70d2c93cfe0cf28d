/**
 * How much of the answer may wait, written, for the caller's socket, so that reading and writing
 * overlap. A slow caller still holds the upstream back: at most twice this waits.
 */
export const WRITE_AHEAD_BYTES = 64 * 1024;

/**
 * workerd's native pipe where there is one, written from the relay's loop: a `ReadableStream`
 * whose `pull` workerd calls for every chunk costs its one thread more turns.
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

const stoppers = new WeakMap<ReadableStream<Uint8Array>, (reason: unknown) => void>();

/**
 * Stops the call behind a body the relay cancels itself: workerd's pipe tells its writer of a
 * cancel only at the next write, which a silent upstream may not give. A caller's leaving needs
 * nothing: workerd ends the request.
 */
export function stopAnswer(body: ReadableStream<Uint8Array>, reason: unknown): void {
  stoppers.get(body)?.(reason);
}

export function onRelayCancel(
  body: ReadableStream<Uint8Array>,
  stop: (reason: unknown) => void,
): void {
  stoppers.set(body, stop);
}
