/**
 * `npm start` is quiet and honest (issue #12): on a machine that cannot reach Cloudflare it
 * prints no stack trace and no update notice, builds the Worker once, and prints the playground
 * URL only once the relay answers.
 */
import { type ChildProcess, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnTracked, stopTracked } from "../../scripts/process_groups.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const READY =
  /stopstream relay: playground at (http:\/\/127\.0\.0\.1:\d+)\/ \(OpenAI base URL \1\/v1\)\n/;

/** The environment of a user's shell: vitest's NODE_ENV=test would switch Miniflare's download of
 * `Request.cf` off by itself, hiding what a user sees. */
function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_ENV;
  return env;
}

let child: ChildProcess;
let output = "";
let url = "";
let firstHealthz: number | string = "not tried";
let scratch = "";

beforeAll(async () => {
  // Every Node process `npm start` runs (npm, wrangler, the [build] command) loads this first
  // and notes its command line: how many times the Worker was built is read from the outside.
  scratch = mkdtempSync(`${tmpdir()}/stopstream-start-`);
  const hook = `${scratch}/note-process.mjs`;
  writeFileSync(
    hook,
    `import { appendFileSync } from "node:fs";\n` +
      `appendFileSync(${JSON.stringify(`${scratch}/processes.log`)}, ` +
      `JSON.stringify(process.argv.slice(1)) + "\\n");\n`,
  );
  child = spawnTracked("npm", [
    "start",
    "--silent",
    "--",
    "--port",
    "0",
    "--env-file",
    "test/e2e/empty.env",
  ], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: userEnv({ NODE_OPTIONS: `--import=${pathToFileURL(hook).href}` }),
  });
  child.stdout?.setEncoding("utf8");
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (text: string) => (output += text));
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
    child.stdout?.on("data", (text: string) => {
      output += text;
      const match = READY.exec(output);
      if (match === null || url !== "") return;
      url = match[1] as string;
      // The moment the URL is printed, one request, no retry: it must be answered.
      fetch(`${url}/healthz`).then(
        (response) => (firstHealthz = response.status),
        (error: Error) => (firstHealthz = String(error.cause ?? error)),
      ).finally(resolve);
    });
  });
}, 60_000);

afterAll(async () => {
  if (child !== undefined) await stopTracked(child, { signal: "SIGINT" });
  rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(process.platform === "win32")("npm start", () => {
  it("prints the playground URL once, when the relay already answers", () => {
    expect(firstHealthz).toBe(200);
    expect(output.match(new RegExp(READY.source, "g"))).toHaveLength(1);
  });

  it("builds the Worker once: one wrangler bundle, one run of the [build] command", () => {
    const processes = readFileSync(`${scratch}/processes.log`, "utf8").trim().split("\n")
      .map((line) => JSON.parse(line) as string[]);
    const runs = (script: string): number =>
      processes.filter((argv) => argv.some((arg) => arg.endsWith(script))).length;
    expect(runs("scripts/build-browser-client.mjs"), JSON.stringify(processes)).toBe(1);
    // Wrangler re-executes itself once (bin → cli.js); either way one `deploy --dry-run`.
    const bundles = processes.filter((argv) =>
      argv.some((arg) => arg.endsWith("wrangler-dist/cli.js")) && argv.includes("--dry-run")
    );
    expect(bundles, JSON.stringify(processes)).toHaveLength(1);
  });

  it("serves the playground and its browser build of stopstream", async () => {
    const page = await fetch(`${url}/`);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(await page.text()).toContain("/stopstream.js");
    const client = await fetch(`${url}/stopstream.js`);
    expect(await client.text()).toContain("stopstream browser build");
  });

  it("a mistake on its command line is one line and exit 64, before anything starts", () => {
    for (const args of [["--bogus"], ["--port", "x"], ["--var", "NO_COLON"]]) {
      const run = spawnSync(process.execPath, ["scripts/start.mjs", ...args], {
        cwd: ROOT,
        encoding: "utf8",
      });
      expect(run.status, args.join(" ")).toBe(64);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^stopstream relay: .+ \(usage: npm start -- .+\)\n$/);
    }
  });

  it("prints no stack trace, error or update notice (Cloudflare unreachable), before or after serving", () => {
    expect(output).not.toMatch(/^\s+at /m);
    expect(output).not.toMatch(/error|ENOTFOUND|✘/i);
    expect(output).not.toMatch(/update available|newer version/i);
  });
});
