// Resumable streams in workerd: a reader still reading when its stream expires (its TTL over, the
// stream deleted under it) is told so by an error event, never cut silently.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { eventsOf, follow, startResumable, streamsRelay, streamStub } from "./stream_helpers.ts";

describe("expiry mid-read", () => {
  it("a reader behind when the stream expires gets a stream_expired error event before its body ends", async () => {
    const { app } = streamsRelay("words=300,word-delay=5");
    const response = await startResumable(app);
    const id = response.headers.get("x-stopstream-stream-id")!;
    expect(eventsOf(await response.text()).at(-1)?.data).toBe("[DONE]"); // finished, kept
    const reader = (await follow(app, id)).body!.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    let raw = decoder.decode(first.value, { stream: true });
    expect(raw).not.toContain("[DONE]"); // the reader is behind: more is to come
    const stub = streamStub(id);
    await runInDurableObject(stub, (_, state) => {
      state.storage.sql.exec("UPDATE stream SET expires = ?", Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
    }
    const events = eventsOf(raw);
    expect(events.some((e) => e.data === "[DONE]")).toBe(false);
    const last = JSON.parse(events.at(-1)!.data) as { error?: Record<string, unknown> };
    expect(last.error).toEqual(
      expect.objectContaining({ code: "stream_expired", message: expect.any(String) }),
    );
    expect((await follow(app, id)).status).toBe(404);
  });
});
