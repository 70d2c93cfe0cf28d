// `npm test -- <file or pattern>` runs only the runners that own the matching test files, and
// fails loudly when nothing matches (it used to ignore its arguments and run everything).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations.
import { selectSteps } from "../../scripts/test-runners.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

interface Selection {
  steps?: Array<{ script: string; args: string[] }>;
  error?: string;
}
const select = (argv: string[]): Selection => selectSteps(argv, { root }) as Selection;

describe("selecting runners by file or pattern", () => {
  test("a file under test/unit runs vitest on Node with that file, and nothing else", () => {
    expect(select(["test/unit/core_retry.test.ts"])).toEqual({
      steps: [{ script: "test:node", args: ["test/unit/core_retry.test.ts"] }],
    });
  });

  test("a file under test/workers runs the workers config; ./ and absolute paths are the same", () => {
    const expected = {
      steps: [{ script: "test:workers", args: ["test/workers/routes.test.ts"] }],
    };
    expect(select(["./test/workers/routes.test.ts"])).toEqual(expected);
    expect(select([`${root}test/workers/routes.test.ts`])).toEqual(expected);
  });

  test("a pattern runs every runner owning a match, each once, Deno and Bun by their script", () => {
    const { steps } = select(["conformance"]);
    expect(steps?.map((s) => s.script)).toEqual([
      "test:node",
      "test:workers",
      "test:deno",
      "test:bun",
      "test:browser",
    ]);
    expect(steps?.find((s) => s.script === "test:deno")?.args).toEqual([]);
    expect(steps?.find((s) => s.script === "test:node")?.args).toEqual(["conformance"]);
  });

  test("-t passes a test-name filter in each runner's own flag", () => {
    expect(select(["deno.test.ts", "-t", "abort"])).toEqual({
      steps: [{ script: "test:deno", args: ["--filter", "abort"] }],
    });
    expect(select(["core_retry", "-t", "abort"]).steps?.[0]?.args).toEqual([
      "core_retry",
      "-t",
      "abort",
    ]);
  });

  test("a Markdown page runs the docs examples of that page, by test name", () => {
    expect(select(["docs/relay.md"])).toEqual({
      steps: [{ script: "test:docs", args: ["-t", "docs/relay.md"] }],
    });
    expect(select(["docs/no_such_page.md"]).error).toMatch(/no such page/);
  });

  test("no match, a helper file, an unknown option or no pattern is an error, never a full run", () => {
    expect(select(["no_such_test"]).error).toMatch(/no test file matches no_such_test/);
    expect(select(["test/support/fault_handler.ts"]).error).toMatch(/only helpers or fixtures/);
    expect(select(["--bogus"]).error).toMatch(/unknown option --bogus/);
    expect(select(["-t", "abort"]).error).toMatch(/no file or pattern/);
    expect(select(["test/pack/run.mjs", "-t", "x"]).error).toMatch(/test:pack has no test-name/);
  });
});

test("`npm test -- <no match>` exits 1 at once with the reason and the runners' folders", () => {
  const run = spawnSync(process.execPath, [`${root}scripts/test-all.mjs`, "no_such_test"], {
    encoding: "utf8",
  });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain("npm test: no test file matches no_such_test");
  expect(run.stderr).toContain("test:workers  test/workers/**/*.test.ts");
  expect(run.stdout).toBe("");
});

test("`npm test -- --dry-run <file>` prints the command it would run", () => {
  const run = spawnSync(
    process.execPath,
    [`${root}scripts/test-all.mjs`, "--dry-run", "test/unit/core_stream.test.ts"],
    { encoding: "utf8" },
  );
  expect(run.status).toBe(0);
  expect(run.stdout).toBe("npm run test:node -- test/unit/core_stream.test.ts\n");
});
