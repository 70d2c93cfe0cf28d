/**
 * The code blocks of README.md and docs/ that `npm test` does not run, each with the reason.
 * Keep this list short: every other block runs in its runtime (see `examples.ts`), so a new
 * example cannot slip through unrun. An entry names its document and a piece of text that
 * occurs in exactly one block there; an entry that matches no block, or several, fails the
 * suite.
 *
 * @module
 */

/**
 * A block that is shown, not run.
 *
 * @example
 * ```ts
 * const fragment: Fragment = { doc: "README.md", contains: "npm ci && npm start", why: "…" };
 * ```
 */
export interface Fragment {
  doc: string;
  contains: string;
  why: string;
}

/** Every fragment, by document. */
export const FRAGMENTS: readonly Fragment[] = [
  {
    doc: "README.md",
    contains: "npm ci && npm start   #",
    why: "the set-up lines themselves: .ci/run runs `npm ci && npm test` on a fresh clone, and " +
      "running `npm test` or the long-lived `npm start` from inside `npm test` would recurse or " +
      "never end (the relay they start is what the relay examples run against)",
  },
  {
    doc: "docs/relay.md",
    contains: "npm start\n# stopstream relay: playground at",
    why: "`npm start` with the line it prints: a server that runs until stopped; the examples " +
      "after it run against the same Worker",
  },
  {
    doc: "docs/relay.md",
    contains: "npx wrangler deploy",
    why: "setting secrets and deploying need a Cloudflare account; `npm run test:deploy` " +
      "bundles the same Worker with `wrangler deploy --dry-run`",
  },
  {
    doc: "docs/relay.md",
    contains: 'class_name = "RelayStream"',
    why: "wrangler.toml lines, not a program: this repository's wrangler.toml declares the same " +
      "binding (test/unit/docs_wrangler.test.ts checks that it does), and the workerd, e2e, " +
      "docs and deploy tests run the Worker with it",
  },
  {
    doc: "docs/relay.md",
    contains: '"message": "stopstream.call"',
    why: "a sample of the call log's line, not a program: test/workers/call_log.test.ts " +
      "asserts each of its fields for a complete, an errored, a partial, a caller-gone and a " +
      "cancelled call",
  },
  {
    doc: "docs/protocols.md",
    contains: "type ReasoningDetail =",
    why: "a type signature, not a program (the type-check of the examples uses the real type)",
  },
];
