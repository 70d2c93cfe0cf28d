// `npm test` on a machine without Chromium: the browser step is SKIPPED for a contributor (who
// is told how to install it), and FAILS when `CI` is set: CI must run it (CONTRIBUTING.md).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
// @ts-expect-error: a plain .mjs script without type declarations.
import { isCI, stepStatus } from "../../scripts/test-runners.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** `npm test -- <pattern>` (scripts/test-all.mjs) with no Chromium where it looks. */
function npmTestWithoutChromium(
  pattern: string,
  ci: string | undefined,
): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    CHROMIUM_PATH: `${root}.tmp/no-chromium-here`,
    CI: ci,
  };
  // The child runs vitest of its own: it must not take itself for one of this run's workers.
  for (const name of Object.keys(env)) if (name.startsWith("VITEST")) delete env[name];
  if (ci === undefined) delete env.CI;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["scripts/test-all.mjs", pattern], { cwd: root, env });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => (output += text));
    child.stderr.setEncoding("utf8").on("data", (text: string) => (output += text));
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("the browser step without Chromium", () => {
  test("is SKIPPED, with how to install it, and npm test passes", async () => {
    const { code, output } = await npmTestWithoutChromium(
      "test/browser/playground.test.ts",
      undefined,
    );
    expect(output).toMatch(/^test:browser +- SKIPPED /m);
    expect(output).toContain("THE BROWSER CHECK WAS SKIPPED");
    expect(output).toContain("apt-get install -y chromium");
    expect(code).toBe(0);
  }, 120_000);

  test("FAILS npm test when CI is set", async () => {
    const { code, output } = await npmTestWithoutChromium(
      "test/browser/playground.test.ts",
      "true",
    );
    expect(output).toMatch(/^test:browser +✗ FAIL /m);
    expect(output).toContain("THE BROWSER CHECK FAILED: CI is set");
    expect(code).toBe(1);
  }, 120_000);

  test("CI counts as set unless empty, 0 or false; only the browser step is affected", () => {
    expect(["true", "1", "yes", "github"].map((CI) => isCI({ CI }))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(["", "0", "false", "FALSE"].map((CI) => isCI({ CI }))).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect(isCI({})).toBe(false);
    const missing = { hasChromium: false, ci: true };
    expect(stepStatus("test:browser", 0, missing)).toBe("fail");
    expect(stepStatus("test:browser", 0, { ...missing, ci: false })).toBe("skipped");
    expect(stepStatus("test:browser", 0, { hasChromium: true, ci: true })).toBe("pass");
    expect(stepStatus("test:node", 0, missing)).toBe("pass");
    expect(stepStatus("test:node", 1, missing)).toBe("fail");
  });
});
