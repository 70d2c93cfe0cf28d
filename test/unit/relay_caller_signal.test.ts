// The relay's link from a caller's signal to its call (src/relay/caller_signal.ts): the
// disconnect aborts the call, and a signal that never fires does not keep the call alive.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { abortOnDisconnect } from "../../src/relay/caller_signal.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

describe("abortOnDisconnect", () => {
  it("aborts the call with the caller's reason when the caller disconnects", () => {
    const caller = new AbortController();
    const abort = abortOnDisconnect(caller.signal);
    expect(abort.signal.aborted).toBe(false);
    const reason = new Error("the caller went away");
    caller.abort(reason);
    expect(abort.signal.aborted).toBe(true);
    expect(abort.signal.reason).toBe(reason);
  });

  it("is aborted at once for a caller who is gone already", () => {
    const caller = new AbortController();
    caller.abort(new Error("gone"));
    const abort = abortOnDisconnect(caller.signal);
    expect(abort.signal.reason).toBe(caller.signal.reason);
  });

  it("can be aborted by the relay itself without the caller's signal firing", () => {
    const caller = new AbortController();
    const abort = abortOnDisconnect(caller.signal);
    abort.abort(new Error("response cancelled"));
    expect(abort.signal.aborted).toBe(true);
    expect(caller.signal.aborted).toBe(false);
  });

  it("is not kept alive by a caller's signal that never fires (workerd keeps such signals)", async () => {
    const caller = new AbortController();
    // What a call hangs on its signal: with a strong link, the caller's signal held all this.
    const held = (() => {
      const abort = abortOnDisconnect(caller.signal);
      const call = { answer: new Uint8Array(1024) };
      abort.signal.addEventListener("abort", () => call.answer.fill(0));
      return new WeakRef(call);
    })();
    // WeakRef targets survive until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(held.deref()).toBeUndefined();
    expect(caller.signal.aborted).toBe(false);
  });
});
