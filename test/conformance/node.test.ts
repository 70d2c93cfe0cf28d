// The conformance suite on Node (vitest), against the fault server on a loopback socket.
import { afterAll, beforeAll, expect, test } from "vitest";
import * as lib from "../../src/index.ts";
import { createFaultHandler } from "../support/fault_handler.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { cases } from "./suite.ts";

const faults = createFaultHandler({ wordDelayMs: 1 });
let server: NodeServer;

beforeAll(async () => {
  server = await startNodeServer(faults.handler);
});
afterAll(async () => {
  await server.close();
  expect(server.connections()).toBe(0);
});

for (const c of cases) {
  test(c.name, () => c.run({ lib, origin: server.url }));
}
