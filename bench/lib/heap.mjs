// The relay isolate's JS heap after a full collection, over a direct DevTools connection to the
// relay's workerd (its inspector, `npm start -- --inspector-port N`). workerd does not answer
// HeapProfiler.collectGarbage; a heap snapshot runs a full GC first, so: snapshot (chunks
// discarded), then Runtime.getHeapUsage. Only HeapProfiler and Runtime are used — no domain is
// enabled, and the connection is closed again, so nothing flows while the load runs.

import { connectInspector, isolateURL } from "./inspector.mjs";

/** JS heap in use after a full GC of the isolate `name` behind inspector `port`, in MiB. */
export async function heapAfterGCMiB(port, name = "stopstream-relay") {
  const inspector = await connectInspector(await isolateURL(port, name));
  try {
    await inspector.call("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
    const { usedSize } = await inspector.call("Runtime.getHeapUsage");
    return Math.round(usedSize / 1048576 * 100) / 100;
  } finally {
    inspector.close();
  }
}
