// Runs one contender in a fresh Node process and returns the JSON line it prints.

import { fileURLToPath } from "node:url";
import { spawnTracked } from "../../scripts/process_groups.mjs";

const WORKERS = fileURLToPath(new URL("../workers/", import.meta.url));

/** `node --expose-gc bench/workers/<contender>.mjs <args…>` → parsed JSON (or an error record). */
export function runContender(contender, args, timeoutMs = 600_000) {
  return new Promise((resolve) => {
    // Tracked: stopped with the benchmark (a contender may run for minutes).
    const child = spawnTracked(
      process.execPath,
      ["--expose-gc", `${WORKERS}${contender}.mjs`, ...args.map(String)],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s) => stdout += s);
    child.stderr.setEncoding("utf8").on("data", (s) => stderr += s);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = stdout.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(line));
      } catch {
        const why = signal ? `killed by ${signal}` : `exit code ${code}`;
        resolve({ ok: false, error: `${why}: ${stderr.trim().split("\n").slice(-3).join(" | ")}` });
      }
    });
  });
}

/** Starts bench/lib/server.mjs as its own process; resolves with `{ url, stop }`. */
export function startServerProcess() {
  const file = fileURLToPath(new URL("./server.mjs", import.meta.url));
  const child = spawnTracked(process.execPath, [file], { stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.on("error", reject);
    child.stdout.setEncoding("utf8").on("data", function onData(s) {
      out += s;
      if (!out.includes("\n")) return;
      child.stdout.off("data", onData);
      const { url } = JSON.parse(out);
      // Closing its stdin tells the server to exit.
      resolve({ url, stop: () => child.stdin.end() });
    });
  });
}
