#!/usr/bin/env node
// The `stopstream` command. The CLI is TypeScript under src/apps/cli/, compiled to dist/ by
// `npm run build` (in a clone, `npm ci` and `npm install` run it; `npm pack` builds the tarball's).
let cli;
try {
  cli = await import("../dist/apps/cli/main.js");
} catch (error) {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" || !String(error.url).endsWith("/dist/apps/cli/main.js")) {
    throw error;
  }
  console.error("stopstream: the CLI is not built (no dist/apps/cli/main.js); run `npm run build`");
  process.exit(1);
}
await cli.run();
