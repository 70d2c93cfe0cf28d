// Empties dist/ before a build, so files of deleted or renamed sources never reach the package.
import { rmSync } from "node:fs";

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
