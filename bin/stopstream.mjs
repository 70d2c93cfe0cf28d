#!/usr/bin/env node
// The `stopstream` command. The CLI is TypeScript under src/cli/, compiled to dist/ by
// `npm run build` (run by `prepare` on install).
import { run } from "../dist/cli/main.js";

await run();
