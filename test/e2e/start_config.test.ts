/**
 * `npm start -- --var NAME:value --env-file path` configures the Worker as `wrangler dev` would
 * (docs/relay.md): the env file's bindings are read, and a `--var` overrides the file's value.
 * Nothing here reaches an upstream: `/v1/models` answers from the configuration alone.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnTracked, stopTracked } from "../../scripts/process_groups.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const READY = /stopstream relay: playground at (http:\/\/127\.0\.0\.1:\d+)\//;
const KEY = "sk-relay-from-env-file";

let child: ChildProcess;
let url = "";
let scratch = "";

beforeAll(async () => {
  scratch = mkdtempSync(`${tmpdir()}/stopstream-start-config-`);
  const envFile = `${scratch}/test.vars`;
  writeFileSync(envFile, `RELAY_KEYS=${KEY}\nUPSTREAM_MODEL=model-from-env-file\n`);
  child = spawnTracked("npm", [
    "start",
    "--silent",
    "--",
    ...["--port", "0", "--env-file", envFile],
    // Port 9 (discard): never called, only named.
    ...[
      "--var",
      "UPSTREAM_BASE_URL:http://127.0.0.1:9/v1",
      "--var",
      "UPSTREAM_MODEL:model-from-var",
    ],
  ], { cwd: ROOT, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
    const onData = (text: string): void => {
      output += text;
      const match = READY.exec(output);
      if (match !== null) resolve(match[1] as string);
    };
    child.stdout?.setEncoding("utf8").on("data", onData);
    child.stderr?.setEncoding("utf8").on("data", onData);
  });
}, 60_000);

afterAll(async () => {
  if (child !== undefined) await stopTracked(child, { signal: "SIGINT" });
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(process.platform === "win32")("npm start -- --env-file --var", () => {
  it("reads the env file: its RELAY_KEYS guard the relay", async () => {
    const anonymous = await fetch(`${url}/v1/models`);
    expect(anonymous.status).toBe(401);
    await anonymous.body?.cancel();
    const wrong = await fetch(`${url}/v1/models`, { headers: { authorization: "Bearer sk-no" } });
    expect(wrong.status).toBe(401);
    await wrong.body?.cancel();
  });

  it("a --var sets a binding and wins over the env file's", async () => {
    const models = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(models.status).toBe(200);
    const { data } = await models.json() as { data: { id: string }[] };
    // Not the demo's model (UPSTREAM_BASE_URL came from --var), and the var's model, not the file's.
    expect(data.map((m) => m.id)).toEqual(["model-from-var"]);
  });
});
