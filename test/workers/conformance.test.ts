// The conformance suite inside workerd (@cloudflare/vitest-pool-workers). The library runs in
// the Workers runtime and streams from the fault server over a real loopback TCP connection
// (started by `fault_server.global.ts` in the Node process), so connection close, aborts and
// timers are workerd's own, not a mock's.
import { inject, test } from "vitest";
import * as lib from "../../src/index.ts";
import { cases } from "../conformance/suite.ts";

const origin = inject("faultOrigin");

for (const c of cases) {
  test(c.name, () => c.run({ lib, origin }));
}
