// The machine and the exact versions of every contender, read from their package.json.

import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import os from "node:os";

const ROOT = new URL("../../", import.meta.url);

function version(pkg) {
  try {
    return JSON.parse(readFileSync(new URL(`node_modules/${pkg}/package.json`, ROOT))).version;
  } catch {
    return null;
  }
}

function git(...args) {
  try {
    return execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();
  } catch {
    return null;
  }
}

function describeBuild() {
  const commit = git("rev-parse", "--short", "HEAD");
  if (commit === null) return "";
  const dirty = git("status", "--porcelain", "--", "src", "mod.ts");
  return ` (${commit}${dirty ? ", with uncommitted changes under src/" : ""})`;
}

/** CPU model, cores, memory, OS, Node. */
export function machine() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? "unknown",
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    // Other work on the machine shows up as noise; this says how busy it was.
    loadAverageBefore: os.loadavg().map((v) => Math.round(v * 100) / 100),
  };
}

/** Versions of stopstream (package.json + git commit) and every contender package. */
export function versions() {
  const own = JSON.parse(readFileSync(new URL("package.json", ROOT)));
  return {
    stopstream: `${own.version}${describeBuild()}`,
    "eventsource-parser": version("eventsource-parser"),
    openai: version("openai"),
    ai: version("ai"),
    "@ai-sdk/openai-compatible": version("@ai-sdk/openai-compatible"),
    "@microsoft/fetch-event-source": version("@microsoft/fetch-event-source"),
    // The bundler of the size table.
    esbuild: version("esbuild"),
    hono: version("hono"),
  };
}
