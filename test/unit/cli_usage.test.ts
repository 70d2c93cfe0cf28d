import { beforeAll, describe, expect, test } from "vitest";
import { ensureBuilt, spawnCli } from "./cli_helpers.ts";

// What `stopstream` says about its own usage, as users see it: a child process on pipes.

beforeAll(ensureBuilt, 60_000);

describe("stopstream usage", () => {
  test("a bad flag prints exactly one line pointing at --help and exits 64", async () => {
    const { code, stderr, stdout } = await spawnCli(["chat", "--demo", "--bogus", "hi"]).exited;
    expect(code).toBe(64);
    expect(stderr).toBe("stopstream: unknown option --bogus (see stopstream chat --help)\n");
    expect(stdout).toBe("");
  });

  test.each([
    [
      ["chat", "--demo", "--max-retries", "x", "hi"],
      '--max-retries must be an integer from 0 to 100, got "x"',
    ],
    [["chat", "hi"], "--model is required (for example --model gpt-4o-mini), or use --demo"],
    [["chat", "--demo", "--model"], "--model needs a value"],
    [["chat", "--demo", "--json=1", "hi"], "--json takes no value"],
    [["chat", "--demo", "--modle", "m", "hi"], "unknown option --modle; did you mean --model?"],
  ])("%j: one line saying what is wrong, exit 64", async (argv, message) => {
    const { code, stderr } = await spawnCli(argv).exited;
    expect(code).toBe(64);
    expect(stderr).toBe(`stopstream: ${message} (see stopstream chat --help)\n`);
  });

  test("an unknown command or top-level option is one line too", async () => {
    expect(await spawnCli(["nope"]).exited).toMatchObject({
      code: 64,
      stderr: "stopstream: unknown command nope (see stopstream --help)\n",
    });
    expect(await spawnCli(["--bogus"]).exited).toMatchObject({
      code: 64,
      stderr: "stopstream: unknown option --bogus (see stopstream --help)\n",
    });
  });

  test("both help texts list --version, and it works before and after `chat`", async () => {
    for (const argv of [["--help"], ["chat", "--help"]]) {
      const { code, stdout } = await spawnCli(argv).exited;
      expect(code).toBe(0);
      expect(stdout).toMatch(/^ {2}-v, --version +print the version$/m);
    }
    for (const argv of [["--version"], ["-v"], ["chat", "--version"]]) {
      const { code, stdout } = await spawnCli(argv).exited;
      expect(code).toBe(0);
      expect(stdout).toMatch(/^stopstream \d+\.\d+\.\d+\n$/);
    }
  });
});

describe("keys pasted into the wrong flag", () => {
  /** An OpenAI-style key and a bare one (Azure's 32 hex digits). */
  const KEYS = ["sk-proj-Zq8vK2mN4pL7xR1tY6wB3cD9", "3f9a1c0b7e2d4a6f8b5c1e0d9a7b3c2f"];
  /** Every 8 characters of `key` in a row: none may reach the terminal. */
  const pieces = (key: string) =>
    Array.from({ length: key.length - 7 }, (_, i) => key.slice(i, i + 8));

  test.each(["--base-url", "--protocol", "--max-retries", "--idle-timeout"])(
    "%s with a key for its value: one line naming the flag, exit 64, no piece of the key",
    async (flag) => {
      for (const key of KEYS) {
        const argv = flag === "--base-url" ? ["chat", flag, key, "--model", "m", "hi"] : [
          "chat",
          "--demo",
          flag,
          key,
          "hi",
        ];
        const { code, stdout, stderr } = await spawnCli(argv).exited;
        expect(code).toBe(64);
        expect(stdout).toBe("");
        expect(stderr.split("\n")).toEqual([expect.stringContaining(flag), ""]);
        expect(stderr).toContain("looks like an API key, so it is not shown");
        for (const piece of pieces(key)) expect(stderr).not.toContain(piece);
      }
    },
  );

  test("a key typed as an option, or after a flag as an option, is not echoed either", async () => {
    const [key] = KEYS as [string];
    for (
      const argv of [["chat", "--demo", `--${key}`, "hi"], ["chat", "--demo", "--model", `-${key}`]]
    ) {
      const { code, stderr } = await spawnCli(argv).exited;
      expect(code).toBe(64);
      for (const piece of pieces(key)) expect(stderr).not.toContain(piece);
    }
  });
});
