// The conformance suite on Bun (`bun test`), with the fault server on `Bun.serve` (127.0.0.1).
import { afterAll, test } from "bun:test";
import * as lib from "../../src/index.ts";
import { createFaultHandler } from "../support/fault_handler.ts";
import { cases } from "./suite.ts";

const faults = createFaultHandler({ wordDelayMs: 1 });
// idleTimeout 0: the stall cases hold a response open longer than Bun's 10 s default would
// allow if the client failed to hang up, and that failure must show in the stats, not here.
// development: false: Bun's development mode prints every response body that errors, with a
// code frame, and the drops the suite provokes are such bodies (Bun has no hook to tell them
// apart); an exception thrown by the handler is still printed.
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 0,
  development: false,
  fetch: faults.handler,
});
const origin = `http://127.0.0.1:${server.port}`;

afterAll(() => server.stop(true));

for (const c of cases) {
  test(c.name, () => c.run({ lib, origin }));
}
