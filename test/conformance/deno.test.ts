// The conformance suite on Deno, with the fault server on `Deno.serve` (127.0.0.1).
//
// The library is imported by its JSR name: deno.json's `name` + `exports` make the package
// resolvable by itself, exactly as a Deno user's `import … from "@stopstream/stopstream"` would
// (through `mod.ts` and the import map's `npm:` specifiers).
import * as lib from "@stopstream/stopstream";
import { createFaultHandler, isDemoDrop } from "../support/fault_handler.ts";
import { cases } from "./suite.ts";

const faults = createFaultHandler({ wordDelayMs: 1 });
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen() {},
  // Deno reports a response body that errors here (its default prints it with a stack):
  // the drops the suite provokes are expected; anything else is still printed.
  onError(error) {
    if (!isDemoDrop(error)) console.error(error);
    return new Response("Internal Server Error", { status: 500 });
  },
}, faults.handler);
const origin = `http://127.0.0.1:${server.addr.port}`;

for (const c of cases) {
  Deno.test({
    name: c.name,
    fn: () => c.run({ lib, origin }),
    // The server lives across tests and finishes cancelled responses on its own schedule, so
    // its ops and resources would be blamed on whichever test was running.
    sanitizeOps: false,
    sanitizeResources: false,
  });
}

Deno.test("the fault server shuts down cleanly", async () => {
  await server.shutdown();
});
