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

test("the drop-after-content case holds when an attempt's words are lost (Chromium did, under load)", async () => {
  const name = "a drop after content rejects with PartialStreamError and is not retried";
  const dropAfter = cases.find((c) => c.name === name)!;
  let calls = 0;
  // The first attempt's body is read to the server's cut, then handed to the client as a
  // network error before any byte: what a browser does when it drops what it had received.
  const losing = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (calls++ > 0 || response.body === null) return response;
    await response.body.pipeTo(new WritableStream()).catch(() => {});
    const lost = new ReadableStream<Uint8Array>({
      start: (controller) => controller.error(new TypeError("network error")),
    });
    return new Response(lost, response);
  };
  const streamChat: typeof lib.streamChat = (options) =>
    lib.streamChat({ ...options, fetch: losing });
  await dropAfter.run({ lib: { ...lib, streamChat }, origin: server.url });
  expect(calls).toBe(2);
});
