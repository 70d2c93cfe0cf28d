/**
 * The code blocks of README.md and docs/*.md, each either an example to run in its runtime or
 * a fragment listed in `fragments.ts`. Nothing else: a block whose language this file does not
 * know, and that is not a listed fragment, fails the suite rather than going unrun.
 *
 * Runtimes come from the fence's info string, whose first word is the language (what GitHub,
 * npm and JSR highlight by) and whose second word, invisible when rendered, names the runtime:
 *
 * - ```` ```ts ````: Node, bundled by esbuild (TypeScript needs a build step or a runner)
 * - ```` ```js ````: Node, as written: an ES module (`.mjs`), unbundled, importing `stopstream`
 *   as a user who installed it does. Its first comment may state the commands that run it
 *   (`` // haiku.mjs: `node haiku.mjs` or `bun haiku.mjs` ``): each runs, on a file of that name.
 * - ```` ```ts deno ````: Deno
 * - ```` ```ts worker ````: a Cloudflare Worker module (its default export), in workerd
 * - ```` ```html ````: a page, in Chromium
 * - ```` ```sh ````: shell commands, in bash (against the demo model and a running relay)
 * - ```` ```js node server ````, ```` ```ts deno server ````, ```` ```ts bun server ````: a relay
 *   server as written, in that runtime, called over its socket (`run_server.ts`)
 *
 * @module
 */

import { readdirSync, readFileSync } from "node:fs";
import { FRAGMENTS } from "./fragments.ts";

/** Where an example runs. */
export type Runtime =
  | "node"
  | "deno"
  | "worker"
  | "browser"
  | "shell"
  | "node-server"
  | "deno-server"
  | "bun-server";

/**
 * One fenced block of a document.
 *
 * @example
 * ```ts
 * const block: CodeBlock = { doc: "README.md", line: 40, info: "ts", heading: "Quick start", source: "…" };
 * ```
 */
export interface CodeBlock {
  /** Repository-relative path of the Markdown file. */
  doc: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The fence's info string (`ts`, `ts deno`, `sh`, …). */
  info: string;
  /** The nearest heading above the block. */
  heading: string;
  /** The block's text, without the fences. */
  source: string;
}

/**
 * A block to run.
 *
 * @example
 * ```ts
 * const example: Example = { ...block, runtime: "node", id: "readme-40" };
 * ```
 */
export interface Example extends CodeBlock {
  runtime: Runtime;
  /** Short, unique and URL-safe: names its files and its route on the loopback upstream. */
  id: string;
}

const RUNTIMES: Record<string, Runtime> = {
  "ts": "node",
  "js": "node",
  "ts node": "node",
  "js node": "node",
  "ts deno": "deno",
  "ts worker": "worker",
  "html": "browser",
  "sh": "shell",
  "js node server": "node-server",
  "ts deno server": "deno-server",
  "ts bun server": "bun-server",
};

/**
 * A command an example's leading comment states runs it: `node haiku.mjs`, `bun haiku.mjs`.
 *
 * @example
 * ```ts
 * const run: StatedCommand = { runtime: "bun", file: "haiku.mjs", command: "bun haiku.mjs" };
 * ```
 */
export interface StatedCommand {
  runtime: "node" | "bun";
  /** The file name the command runs, as the comment gives it. */
  file: string;
  command: string;
}

/** In backticks, in the `//` comment lines that open an example. */
const STATED = /`((node|bun) ([\w.-]+\.m?js))`/g;

/** The commands the leading `//` comment of a JavaScript example states, in order. */
export function statedCommands(source: string): StatedCommand[] {
  const lines = source.split("\n");
  const comment: string[] = [];
  for (const line of lines) {
    if (!line.startsWith("//")) break;
    comment.push(line);
  }
  return [...comment.join("\n").matchAll(STATED)].map(([, command, runtime, file]) => ({
    runtime: runtime as StatedCommand["runtime"],
    file: file as string,
    command: command as string,
  }));
}

/** README.md and every Markdown file under docs/ (the generated docs/api/ excepted). */
export function documents(root: string): string[] {
  const docs = readdirSync(`${root}docs`, { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".md") && !path.startsWith("api/"))
    .map((path) => `docs/${path.split("\\").join("/")}`)
    .sort();
  return ["README.md", ...docs];
}

/** Every fenced block of one Markdown file, in order. */
export function codeBlocks(root: string, doc: string): CodeBlock[] {
  const lines = readFileSync(`${root}${doc}`, "utf8").split("\n");
  const blocks: CodeBlock[] = [];
  let heading = "";
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const heading_ = /^#{1,6} (.*)$/.exec(line);
    if (heading_ !== null) heading = heading_[1] as string;
    const fence = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(line);
    if (fence === null) continue;
    const [, indent, marks, info] = fence as unknown as [string, string, string, string];
    const body: string[] = [];
    let end = i + 1;
    // The block ends at a fence of the same kind, at least as long (CommonMark).
    while (end < lines.length && !isClosing(lines[end] as string, marks)) {
      body.push((lines[end] as string).slice(indent.length));
      end++;
    }
    blocks.push({ doc, line: i + 1, info: info.trim(), heading, source: `${body.join("\n")}\n` });
    i = end;
  }
  return blocks;
}

function isClosing(line: string, marks: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith(marks) && trimmed.replaceAll(marks[0] as string, "") === "";
}

/** The fragment entry a block matches, if any. */
export function fragmentOf(block: CodeBlock): (typeof FRAGMENTS)[number] | undefined {
  return FRAGMENTS.find((f) => f.doc === block.doc && block.source.includes(f.contains));
}

/**
 * Sorts every block of the documents into examples (with their runtime) and fragments, and
 * lists the problems: a block that is neither, or a fragment entry that matches no block or
 * several (stale entries must not linger to excuse a future block).
 */
export function collectExamples(root: string): {
  examples: Example[];
  fragments: CodeBlock[];
  problems: string[];
} {
  const examples: Example[] = [];
  const fragments: CodeBlock[] = [];
  const problems: string[] = [];
  const uses = new Map<(typeof FRAGMENTS)[number], number>();
  for (const doc of documents(root)) {
    for (const block of codeBlocks(root, doc)) {
      const fragment = fragmentOf(block);
      if (fragment !== undefined) {
        uses.set(fragment, (uses.get(fragment) ?? 0) + 1);
        fragments.push(block);
        continue;
      }
      const runtime = RUNTIMES[block.info];
      if (runtime === undefined) {
        problems.push(
          `${doc}:${block.line}: a \`\`\`${block.info} block is neither an example (languages: ${
            Object.keys(RUNTIMES).join(", ")
          }) nor a fragment listed in test/docs/fragments.ts`,
        );
        continue;
      }
      const base = doc.replace(/^docs\//, "").replace(/\.md$/, "").toLowerCase();
      examples.push({ ...block, runtime, id: `${base}-${block.line}` });
    }
  }
  for (const fragment of FRAGMENTS) {
    const count = uses.get(fragment) ?? 0;
    if (count !== 1) {
      problems.push(
        `test/docs/fragments.ts: the fragment "${fragment.contains}" in ${fragment.doc} matches ${count} blocks, not 1`,
      );
    }
  }
  return { examples, fragments, problems };
}
