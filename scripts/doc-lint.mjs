// `deno doc --lint` over both entry points (part of `npm run lint`): every export and every
// field of an exported type must carry JSDoc, which is also what the API reference
// (`npm run docs:api`, and JSR's generated docs) is built from.
//
// A few findings cannot be fixed with JSDoc: a public type that refers to a type the entry
// points do not export. They are listed in KNOWN, each with why; any other finding fails, and so
// does a KNOWN entry that no longer occurs (so the list only shrinks).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** `private-type-ref` findings accepted for now: the message deno prints → why it stays. */
const KNOWN = new Map([
  [
    "public type 'createDemoRelay' references private type 'Hono'",
    "Hono is the peer dependency's own class; re-exporting it would make it ours",
  ],
  [
    "public type 'createRelay' references private type 'Hono'",
    "Hono is the peer dependency's own class; re-exporting it would make it ours",
  ],
  [
    "public type 'ResponsesStreamEvent' references private type 'ItemRef'",
    "a helper type inside the Responses wire union; inlining it is a code change",
  ],
]);

const out = spawnSync(
  `${root}node_modules/.bin/deno`,
  ["doc", "--lint", "mod.ts", "hono.ts", "demo.ts"],
  { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
);
const text = `${out.stdout}${out.stderr}`;
// Each finding starts with `error[rule]: message`, then its location on a `-->` line.
const findings = [...text.matchAll(/^error\[([a-z-]+)\]: (.+)\n\s*--> (\S+)/gm)].map((m) => ({
  rule: m[1],
  message: m[2].trim(),
  where: m[3].replace(`${root}`, ""),
}));

const unexpected = findings.filter((f) => !KNOWN.has(f.message));
const stale = [...KNOWN.keys()].filter((message) => !findings.some((f) => f.message === message));
const failedToRun = out.status !== 0 && findings.length === 0;

if (failedToRun || unexpected.length > 0 || stale.length > 0) {
  if (failedToRun) console.error(text);
  for (const f of unexpected) {
    console.error(`✗ deno doc --lint: ${f.where}: [${f.rule}] ${f.message}`);
  }
  for (const message of stale) {
    console.error(`✗ scripts/doc-lint.mjs: no longer reported, remove it from KNOWN: ${message}`);
  }
  if (unexpected.some((f) => f.rule === "missing-jsdoc")) {
    console.error(
      "  Every export, and every field of an exported type, needs a /** JSDoc */ comment.",
    );
  }
  process.exit(1);
}
console.log(
  `deno doc --lint: every export documented (${KNOWN.size} known private-type-ref, see scripts/doc-lint.mjs)`,
);
