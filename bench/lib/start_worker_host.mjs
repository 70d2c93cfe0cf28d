// The relay Worker under wrangler's `unstable_startWorker` with its DevTools inspector proxy off,
// on 127.0.0.1:<port>: one of the runners the load test compares (`--runner start-worker`), kept
// to reproduce why `npm start` does not use it (bench/notes.md). Stops on SIGTERM.
//   node bench/lib/start_worker_host.mjs <port> <env file> '<vars as JSON>'

import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const [port, envFile, varsJSON] = process.argv.slice(2);
const vars = JSON.parse(varsJSON ?? "{}");

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
const { unstable_startWorker } = await import("wrangler");
const worker = await unstable_startWorker({
  config: `${ROOT}wrangler.toml`,
  envFiles: [envFile],
  bindings: Object.fromEntries(
    Object.entries(vars).map(([name, value]) => [name, { type: "plain_text", value }]),
  ),
  dev: {
    inspector: false,
    server: { hostname: "127.0.0.1", port: Number(port) },
    logLevel: "error",
    watch: false,
  },
});
await worker.ready;
process.once("SIGTERM", async () => {
  await worker.dispose();
  process.exit(0);
});
