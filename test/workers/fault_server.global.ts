// vitest globalSetup for the workerd tests: the shared fault server on a real loopback socket,
// in the Node process that drives workerd. Tests in workerd reach it by `fetch` over TCP (what
// a deployed Worker does with any upstream) and read its origin with `inject("faultOrigin")`.
import type { TestProject } from "vitest/node";
import { createFaultHandler } from "../support/fault_handler.ts";
import { startNodeServer } from "../support/node_server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** `http://127.0.0.1:<port>` of the fault server. */
    faultOrigin: string;
  }
}

/** Starts the fault server and returns its teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startNodeServer(createFaultHandler({ wordDelayMs: 1 }).handler);
  project.provide("faultOrigin", server.url);
  return () => server.close();
}
