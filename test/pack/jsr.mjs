// The JSR package as `deno publish` would upload it (`npm run test:jsr`): type-check both entry
// points, then a publish dry run (which also rejects slow types), and check the file list it
// prints: a file missing from `publish.include` is silently left out, and a LICENSE left out
// this way went unnoticed before.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const deno = `${root}node_modules/.bin/deno`;

/** Runs deno; exits with its output when it fails. */
function run(args) {
  const out = spawnSync(deno, args, {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const text = `${out.stdout}${out.stderr}`;
  if (out.status !== 0) {
    console.error(text);
    console.error(`✗ deno ${args.join(" ")} failed (status ${out.status})`);
    process.exit(1);
  }
  return text;
}

run(["check", "mod.ts", "hono.ts", "demo.ts"]);
const dryRun = run(["publish", "--dry-run", "--allow-dirty"]);
const relative = [...dryRun.matchAll(/^\s+(file:\/\/\S+) \(/gm)].map((m) =>
  fileURLToPath(m[1]).slice(root.length)
);

const problems = [];
for (
  const needed of [
    "LICENSE",
    "README.md",
    "deno.json",
    "mod.ts",
    "hono.ts",
    "demo.ts",
    "src/index.ts",
    "src/apps/demo/index.ts",
  ]
) {
  if (!relative.includes(needed)) problems.push(`the JSR package lacks ${needed}`);
}
const stray = relative.filter((p) =>
  /^(src\/apps\/(cli|playground|worker)|test|bench|scripts|node_modules)\//.test(p)
);
if (stray.length > 0) problems.push(`the JSR package ships ${stray.join(", ")}`);
if (relative.length === 0) problems.push("no file list in the dry run's output:\n" + dryRun);

if (problems.length > 0) {
  for (const problem of problems) console.error(`✗ ${problem}`);
  process.exit(1);
}
console.log(
  `  ✓ deno check, deno publish --dry-run: ${relative.length} files, LICENSE and README included`,
);
