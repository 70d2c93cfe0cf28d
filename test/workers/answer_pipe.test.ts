/**
 * An answer longer than the 64 KiB the relay lets wait in workerd's pipe (src/relay/body_pipe.ts),
 * read to its end: workerd's `ready` promise, and the relay's loop that must not await it alone
 * (src/relay/answer_writer.ts, `#room`).
 */

import { describe, expect, test } from "vitest";
import { PIECE, readAll, relay, request, untilContent, upstream } from "../support/slow_caller.ts";
import { delay, DONE } from "../support/sse.ts";

type NativePipe = new (strategy: { highWaterMark: number }) => TransformStream<
  Uint8Array,
  Uint8Array
>;
const { IdentityTransformStream } = globalThis as unknown as {
  IdentityTransformStream: NativePipe;
};

/** What `read` gives, or `"hung"` if it has not ended within 5 s (it takes well under 1 s). */
function within<T>(read: Promise<T>): Promise<T | "hung"> {
  return Promise.race([read, delay(5_000).then(() => "hung" as const)]);
}

describe("workerd's IdentityTransformStream", () => {
  // The runtime behaviour the relay works around. Should this start to fail, workerd settles
  // `ready` as the Streams spec does, and `AnswerWriter#room` could await it alone again.
  test("replaces a `ready` awaited past the mark at a write taken, and never settles it", async () => {
    const pipe = new IdentityTransformStream({ highWaterMark: 64 * 1024 });
    const writer = pipe.writable.getWriter();
    // 14 bytes and five 16 KiB pieces: the first taken leaves the pipe over the mark.
    for (const size of [14, 16_384, 16_384, 16_384, 16_384, 16_384]) {
      writer.write(new Uint8Array(size)).catch(() => {});
    }
    const ready = writer.ready;
    let settled = false;
    ready.then(() => (settled = true), () => (settled = true));
    const reader = pipe.readable.getReader();
    for (let read = 0; read < 14 + 5 * 16_384;) read += (await reader.read()).value!.byteLength;
    await delay(10);
    expect(writer.desiredSize).toBe(64 * 1024);
    expect(settled).toBe(false);
    expect(writer.ready).not.toBe(ready);
  });
});

describe("relay in workerd: an answer longer than its pipe's mark", () => {
  // Before: the answer stopped after about 77 KB read here (81 KB over a socket), keep-alives only
  // after it, the upstream held with 95 KiB of it pulled.
  test("reaches a caller in the same isolate (a middleware, a tee) to its end", async () => {
    const up = upstream(200);
    const app = relay(up, { keepAliveMs: 10_000 });
    const { reader } = await untilContent(await app.fetch(request()));
    const rest = await within(readAll(reader));
    expect(rest === "hung" ? `hung, ${up.pulled()} B pulled` : rest.slice(-DONE.length)).toBe(DONE);
    expect(up.pulled()).toBe(200 * PIECE.length);
  });

  test("reaches a native reader (as workerd's pump to a socket reads it) to its end", async () => {
    const up = upstream(200);
    const app = relay(up, { keepAliveMs: 10_000 });
    const text = await within((await app.fetch(request())).text());
    expect(text === "hung" ? `hung, ${up.pulled()} B pulled` : text.slice(-DONE.length)).toBe(DONE);
    expect(text).not.toContain('"error"');
    expect(up.pulled()).toBe(200 * PIECE.length);
  });
});
