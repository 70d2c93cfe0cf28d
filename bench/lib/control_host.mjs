// The pass-through control Worker (control_worker.mjs) on 127.0.0.1:<port>, in the runtime
// `npm start` runs the relay in (Miniflare → workerd, wrangler.toml's compatibility date and
// flags): the load test's `--runner control`, the yardstick for the relay under the same load.
//   node bench/lib/control_host.mjs <port> '<vars as JSON>'

import { fileURLToPath } from "node:url";
import { QUIET_ENV, serveWorker } from "../../scripts/start.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Serves the control Worker; resolves with `{ url, miniflare }` (see serveWorker). */
export async function serveControl({ port = 0, vars = {}, inspectorPort } = {}) {
  Object.assign(process.env, QUIET_ENV);
  const { unstable_getMiniflareWorkerOptions } = await import("wrangler");
  const { workerOptions } = unstable_getMiniflareWorkerOptions(`${ROOT}wrangler.toml`);
  return await serveWorker({
    scriptPath: fileURLToPath(new URL("./control_worker.mjs", import.meta.url)),
    workerOptions: {
      compatibilityDate: workerOptions.compatibilityDate,
      compatibilityFlags: workerOptions.compatibilityFlags,
      bindings: vars,
    },
    name: "control",
    port,
    inspectorPort,
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [port, varsJSON] = process.argv.slice(2);
  await serveControl({ port: Number(port), vars: JSON.parse(varsJSON ?? "{}") });
}
