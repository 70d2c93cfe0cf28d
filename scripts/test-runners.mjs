// Which runner owns which test files: the one table `npm test -- <file or pattern>` routes by,
// and where the vitest configs take their `include` from, so the two cannot disagree.
import { existsSync, readdirSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";

/**
 * The test runners, each an npm script. `include` globs are relative to the repository root.
 * `files` says how the runner takes a file filter (`vitest`: as positional arguments; `none`:
 * its script names its file already). `name` is its flag for a test-name filter, if it has one.
 */
export const RUNNERS = [
  {
    script: "test:node",
    include: ["test/unit/**/*.test.ts", "test/e2e/**/*.test.ts", "test/conformance/node.test.ts"],
    files: "vitest",
    name: "-t",
  },
  { script: "test:workers", include: ["test/workers/**/*.test.ts"], files: "vitest", name: "-t" },
  {
    script: "test:deno",
    include: ["test/conformance/deno.test.ts"],
    files: "none",
    name: "--filter",
  },
  { script: "test:bun", include: ["test/conformance/bun.test.ts"], files: "none", name: "-t" },
  { script: "test:browser", include: ["test/browser/**/*.test.ts"], files: "vitest", name: "-t" },
  { script: "test:docs", include: ["test/docs/**/*.test.ts"], files: "vitest", name: "-t" },
  { script: "test:pack", include: ["test/pack/run.mjs"], files: "none" },
  { script: "test:jsr", include: ["test/pack/jsr.mjs"], files: "none" },
];

/** Whether the `CI` environment variable is set (to anything but `""`, `0` or `false`). */
export function isCI(env) {
  return env.CI !== undefined && !["", "0", "false"].includes(env.CI.toLowerCase());
}

/**
 * A step's result from its exit status. Without Chromium the browser tests skip themselves and
 * their step exits 0: SKIPPED on a contributor's machine (with how to install it), but a FAIL in
 * CI, which must run them.
 */
export function stepStatus(script, code, { hasChromium, ci }) {
  if (code !== 0) return "fail";
  if (script === "test:browser" && !hasChromium) return ci ? "fail" : "skipped";
  return "pass";
}

/** The `include` globs of one runner (for the vitest configs). */
export function includeOf(script) {
  const runner = RUNNERS.find((r) => r.script === script);
  if (runner === undefined) throw new Error(`no runner ${script}`);
  return runner.include;
}

/** A glob of the shapes used above (`**` for any folders, `*` within a name) as a RegExp. */
function globToRegExp(glob) {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    if (glob.startsWith("**/", i)) {
      source += "(?:.*/)?";
      i += 2;
    } else if (glob[i] === "*") source += "[^/]*";
    else source += glob[i].replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** Every file under `test/`, as repository-relative paths with `/`. */
export function testTreeFiles(root) {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(`${root}${dir}`, { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk("test");
  return files;
}

/**
 * Turns `npm test -- <args>` into what to run: `{ steps: [{ script, args }] }`, or
 * `{ error }` when an argument is unknown or matches no test file. A pattern selects every test
 * file whose repository-relative path contains it (as vitest filters); each runner owning one
 * runs once, given the patterns that matched its files.
 */
export function selectSteps(argv, { root, files = testTreeFiles(root) }) {
  const patterns = [];
  let name;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-t" || arg === "--testNamePattern") {
      name = argv[++i];
      if (name === undefined) return { error: `${arg} needs a test name` };
    } else if (arg.startsWith("-")) {
      return { error: `unknown option ${arg}` };
    } else {
      let pattern = isAbsolute(arg) ? relative(root, arg) : arg;
      pattern = pattern.split(sep).join("/").replace(/^\.\//, "");
      if (pattern === "" || pattern.startsWith("../")) {
        return { error: `${arg} is not inside this repository` };
      }
      patterns.push(pattern);
    }
  }
  if (patterns.length === 0) return { error: "no file or pattern given" };

  // A Markdown page runs its examples: `npm test -- docs/relay.md` → test:docs -t docs/relay.md.
  const pages = patterns.filter((p) => /(^|\/)(README|[\w-]+)\.md$/.test(p));
  if (pages.length > 0) {
    if (pages.length !== patterns.length || name !== undefined) {
      return { error: "give Markdown pages alone: their examples are selected by name" };
    }
    const docs = [...new Set(pages.map((p) => p.replace(/^\.\//, "")))];
    const missing = docs.filter((doc) => !existsSync(`${root}${doc}`));
    if (missing.length > 0) return { error: `no such page: ${missing.join(", ")}` };
    return { steps: [{ script: "test:docs", args: ["-t", docs.join("|")] }] };
  }

  const owned = RUNNERS.map((runner) => {
    const globs = runner.include.map(globToRegExp);
    return { runner, files: files.filter((f) => globs.some((g) => g.test(f))) };
  });
  const steps = [];
  const unmatched = [];
  for (const pattern of patterns) {
    if (!owned.some(({ files }) => files.some((f) => f.includes(pattern)))) unmatched.push(pattern);
  }
  if (unmatched.length > 0) {
    const helpers = unmatched.filter((p) => files.some((f) => f.includes(p)));
    const note = helpers.length > 0
      ? ` (${helpers.join(", ")} matches only helpers or fixtures, which no runner runs alone)`
      : "";
    return { error: `no test file matches ${unmatched.join(", ")}${note}` };
  }
  for (const { runner, files: mine } of owned) {
    const matched = patterns.filter((p) => mine.some((f) => f.includes(p)));
    if (matched.length === 0) continue;
    const args = runner.files === "vitest" ? [...matched] : [];
    if (name !== undefined) {
      if (runner.name === undefined) {
        return { error: `${runner.script} has no test-name filter; drop -t to run it` };
      }
      args.push(runner.name, name);
    }
    steps.push({ script: runner.script, args });
  }
  return { steps };
}

/** The help text of `npm test -- --help`, and the tail of every selection error. */
export function usage() {
  const rows = RUNNERS.map((r) => `  ${r.script.padEnd(13)} ${r.include.join(", ")}`);
  return [
    "usage: npm test                           every step (lint, types, build, every runner)",
    "       npm test -- <file or pattern>…     only the runners owning matching test files",
    "       npm test -- <pattern> -t <name>    … and only tests whose name matches",
    "       npm test -- docs/relay.md          the examples of one page (README.md, docs/*.md)",
    "       npm test -- --dry-run <pattern>    print what would run",
    "A pattern selects every test file whose path contains it. Runners and their files:",
    ...rows,
  ].join("\n");
}
