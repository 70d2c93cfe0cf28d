/**
 * Nothing a benchmark or `npm start` starts outlives it. A relay runs in a process group of its
 * own (so that stopping it reaches workerd), which also keeps the terminal's Ctrl-C from reaching
 * it: a benchmark that is interrupted, terminated, hung up on or crashes must take its relays
 * along (scripts/process_groups.mjs), and `npm start` must take its workerd along however it is
 * stopped (scripts/start.mjs).
 */
import type { ChildProcess, SpawnOptions } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { isRunning, spawnTracked, stopTracked } from "../../scripts/process_groups.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = fileURLToPath(new URL("./fixtures/bench_relay.mjs", import.meta.url));
const READY = /stopstream relay: playground at (http:\/\/127\.0\.0\.1:\d+)\//;

/** What each test started, stopped after it whatever it asserted (SIGKILL: it may have hung). */
const children = new Set<ChildProcess>();
const groups = new Set<number>();
afterEach(async () => {
  for (const child of children) await stopTracked(child, { signal: "SIGKILL" });
  for (const pgid of groups) isRunning(-pgid) && process.kill(-pgid, "SIGKILL");
  children.clear();
  groups.clear();
});

/** Spawns a child this test file stops (or, if the file is cut short, its worker's exit). */
function start(command: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawnTracked(command, args, { cwd: ROOT, ...options });
  children.add(child);
  return child;
}

/** Resolves once `check()` holds, polling (a process group's end has no event to await). */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The code of a connection attempt to `url`'s port: "connected" or the error's code. */
async function dial(url: string): Promise<string> {
  const socket = connect(Number(new URL(url).port), "127.0.0.1");
  try {
    await once(socket, "connect");
    return "connected";
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  } finally {
    socket.destroy();
  }
}

async function healthz(url: string): Promise<number> {
  const response = await fetch(`${url}/healthz`);
  await response.body?.cancel();
  return response.status;
}

/** Collects a child's output; resolves with the first match of `pattern` in it. */
async function printed(child: ChildProcess, pattern: RegExp): Promise<RegExpExecArray> {
  let output = "";
  return await new Promise((resolve, reject) => {
    const onExit = (): void => reject(new Error(`exited before printing ${pattern}:\n${output}`));
    child.once("exit", onExit);
    const onData = (text: string): void => {
      output += text;
      const match = pattern.exec(output);
      if (match === null) return;
      child.off("exit", onExit);
      resolve(match);
    };
    child.stdout?.setEncoding("utf8").on("data", onData);
    child.stderr?.setEncoding("utf8").on("data", onData);
  });
}

/** Asserts that nothing of group `pgid` runs and nothing answers at `url` any more. */
async function expectGone(pgid: number, url: string): Promise<void> {
  await until(() => !isRunning(-pgid), `process group ${pgid} ended`);
  expect(await dial(url)).toBe("ECONNREFUSED");
}

/** The fixture benchmark with a relay of `runner` up; resolves once that relay answers. */
async function benchWithRelay(runner: string) {
  const bench = start(process.execPath, [FIXTURE, runner], { stdio: ["pipe", "pipe", "pipe"] });
  const exited = once(bench, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const [line] = await printed(bench, /^\{.*\}\n/m);
  const relay = JSON.parse(line) as { url: string; pid: number };
  // Not ours to track (the benchmark's child): killed by pgid if a test fails.
  groups.add(relay.pid);
  expect(await healthz(relay.url)).toBe(200);
  return { bench, exited, relay };
}

describe.skipIf(process.platform === "win32")("a benchmark's relays go when it goes", () => {
  it(
    "Ctrl-C (SIGINT): `npm start` and its workerd stop, and the benchmark dies of SIGINT",
    async () => {
      const { bench, exited, relay } = await benchWithRelay("npm-start");
      bench.kill("SIGINT");
      expect(await exited).toEqual([null, "SIGINT"]);
      await expectGone(relay.pid, relay.url);
    },
    30_000,
  );

  it.each(["SIGTERM", "SIGHUP"] as const)("%s: the relay stops", async (signal) => {
    const { bench, exited, relay } = await benchWithRelay("control");
    bench.kill(signal);
    expect(await exited).toEqual([null, signal]);
    await expectGone(relay.pid, relay.url);
  }, 30_000);

  it.each(["throw", "reject"])("a crash (%s): the relay stops", async (how) => {
    const { bench, exited, relay } = await benchWithRelay("control");
    bench.stdin?.write(`${how}\n`);
    expect(await exited).toEqual([1, null]);
    await expectGone(relay.pid, relay.url);
  }, 30_000);
});

describe.skipIf(process.platform === "win32")("npm start takes its workerd along", () => {
  /** `command` (npm start, or scripts/start.mjs itself) in a group of its own, serving. */
  async function serve(command: string, args: string[]) {
    const child = start(command, [...args, "--port", "0", "--env-file", "test/e2e/empty.env"], {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const [, url] = await printed(child, READY);
    return { child, url: url as string };
  }

  it(
    "SIGTERM to the npm process alone (what child.kill() sends): nothing of it keeps running",
    async () => {
      // npm forwards the signal to `sh -c`, which dies without passing it on to node.
      const { child, url } = await serve("npm", ["start", "--silent", "--"]);
      child.kill("SIGTERM");
      await expectGone(child.pid as number, url);
    },
    30_000,
  );

  it("SIGHUP (a closed terminal) to scripts/start.mjs: workerd stops too", async () => {
    const { child, url } = await serve(process.execPath, ["scripts/start.mjs"]);
    child.kill("SIGHUP");
    await expectGone(child.pid as number, url);
  }, 30_000);
});
