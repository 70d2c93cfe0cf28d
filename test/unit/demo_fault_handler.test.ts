import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { createFaultHandler } from "../support/fault_handler.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { chatRequest, jsonChunks, parseRaw, readBody } from "./demo_helpers.ts";

const faults = createFaultHandler({ wordDelayMs: 1 });
let server: NodeServer;
let n = 0;
let id = "";

beforeAll(async () => {
  server = await startNodeServer(faults.handler);
});
afterAll(async () => {
  await server.close();
  expect(server.connections()).toBe(0);
});
beforeEach(() => {
  id = `test-${++n}`;
});

const chat = (headers: Record<string, string> = {}, spec?: string, init: RequestInit = {}) => {
  const path = spec === undefined ? "" : `/f/${encodeURIComponent(spec)}`;
  const url = `${server.url}/t/${id}${path}/v1/chat/completions`;
  return fetch(chatRequest({ stream: true }, headers, url), init);
};
const remoteStats = async (query = "") =>
  await (await fetch(`${server.url}/t/${id}/stats${query}`)).json();

describe("fault handler", () => {
  test("the attempt number is the count of requests for the id", async () => {
    const headers = { "x-demo-fault": "attempt1=status:503,attempt1=retry-after:1" };
    const first = await chat(headers);
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("1");
    expect(first.headers.get("x-demo-attempt")).toBe("1");
    await first.body?.cancel();
    const second = await chat(headers);
    expect(second.status).toBe(200);
    const { text, error } = await readBody(second.body!);
    expect(error).toBeUndefined();
    expect(text).toMatch(/data: \[DONE\]\n\n$/);
    const expected = { requests: 2, cancelled: 0, completed: 1 };
    expect(await faults.waitFor(id, expected)).toEqual(expected);
    expect(await remoteStats()).toEqual(expected);
  });

  test("a fault spec in the path works like the header, and both combine", async () => {
    const response = await chat({ "x-demo-fault": "words=10" }, "drop-after=3");
    const { text, error } = await readBody(response.body!);
    expect(error).toBeInstanceOf(TypeError);
    expect(jsonChunks(parseRaw(text))).toHaveLength(3);
    expect(await (await server.request(server.requests().length)).closed).toBe("dropped");
    expect(faults.stats(id)).toEqual({ requests: 1, cancelled: 0, completed: 0 });
  });

  test("a client abort mid-stream shows up as cancelled, awaited through the stats route", async () => {
    const controller = new AbortController();
    const response = await chat({ "x-demo-fault": "words=1000" }, undefined, {
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    expect(await remoteStats("?cancelled=1&timeout=2000")).toEqual({
      requests: 1,
      cancelled: 1,
      completed: 0,
    });
  });

  test("an abort before the first byte is a cancel too", async () => {
    const controller = new AbortController();
    const pending = chat({ "x-demo-fault": "first-byte-ms=5000" }, undefined, {
      signal: controller.signal,
    });
    await faults.waitFor(id, { requests: 1 });
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect(await faults.waitFor(id, { cancelled: 1 })).toEqual({
      requests: 1,
      cancelled: 1,
      completed: 0,
    });
  });

  test("the stats route gives up after its timeout and returns what it saw", async () => {
    expect(await remoteStats("?completed=1&timeout=20")).toEqual({
      requests: 0,
      cancelled: 0,
      completed: 0,
    });
  });

  test("ids are isolated and reset clears them", async () => {
    const other = createFaultHandler();
    const post = (target: string) =>
      other.handler(chatRequest({}, {}, `http://x/t/${target}/v1/chat/completions`));
    expect((await post("a")).status).toBe(200);
    expect((await post("a")).headers.get("x-demo-attempt")).toBe("2");
    expect((await post("b")).headers.get("x-demo-attempt")).toBe("1");
    other.reset();
    expect(other.stats("a")).toEqual({ requests: 0, cancelled: 0, completed: 0 });
    expect((await post("a")).headers.get("x-demo-attempt")).toBe("1");
  });

  test("CORS preflights are answered and every response carries the CORS headers", async () => {
    const preflight = await fetch(`${server.url}/t/${id}/v1/chat/completions`, {
      method: "OPTIONS",
      headers: {
        origin: "http://127.0.0.1:1",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,x-demo-fault",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("content-type,x-demo-fault");
    const limited = await chat({ "x-demo-fault": "status=429,retry-after=2" });
    expect(limited.headers.get("access-control-allow-origin")).toBe("*");
    expect(limited.headers.get("access-control-expose-headers")).toMatch(/retry-after/);
    await limited.body?.cancel();
    expect(faults.stats(id).requests).toBe(1);
  });

  test("healthz answers and unknown routes are a 404", async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(await health.json()).toEqual({ ok: true });
    const missing = await fetch(`${server.url}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("access-control-allow-origin")).toBe("*");
    await missing.body?.cancel();
  });
});
