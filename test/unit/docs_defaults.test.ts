/**
 * The defaults the option tables promise are the ones the code applies: docs/options.md and
 * docs/retries.md against what `streamChat` resolves, docs/relay.md's `createRelay` table and
 * its bindings table against `resolveRelayOptions` and `relayOptionsFromEnv`. A default changed
 * in `src/` (or a doc edited by hand) fails here, naming the row.
 */

import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { relayOptionsFromEnv } from "../../src/relay/env.ts";
import { resolveRelayOptions } from "../../src/relay/option_rules.ts";
import { planCall } from "../../src/client/plan.ts";

const root = new URL("../../", import.meta.url);
const doc = (path: string) => readFileSync(new URL(path, root), "utf8");

/** The rows of the Markdown table whose header row starts with `| first |`, as cells. */
function table(text: string, first: string): string[][] {
  const lines = text.split("\n");
  const start = lines.findIndex((line) => new RegExp(`^\\|\\s*${first}\\s*\\|`).test(line));
  if (start === -1) throw new Error(`no table headed "${first}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    rows.push(line.split("|").slice(1, -1).map((cell) => cell.trim()));
  }
  return rows;
}

/** A default as the docs write it (`2`, `16 MiB`, `60 s`, `{ a: 1, b: none }`, `"throw"`). */
function valueOf(text: string): unknown {
  const bare = text.replace(/`/g, "").trim();
  const bytes = /^(\d+) (KiB|MiB)$/.exec(bare);
  if (bytes) return Number(bytes[1]) * (bytes[2] === "KiB" ? 1024 : 1024 * 1024);
  const seconds = /^(\d+) s$/.exec(bare);
  if (seconds) return Number(seconds[1]) * 1000;
  if (/^\d+$/.test(bare)) return Number(bare);
  if (bare === "none") return Infinity;
  if (/^".*"$/.test(bare) || bare === "[]" || bare === "false" || bare === "true") {
    return JSON.parse(bare);
  }
  const object = /^\{(.*)\}$/.exec(bare);
  if (object) {
    return Object.fromEntries(
      object[1]!.split(",").map((pair) => {
        const [key, value] = pair.split(":").map((part) => part.trim());
        return [key, valueOf(value!)];
      }),
    );
  }
  throw new Error(`the test cannot read the default "${text}"`);
}

/** Backticked option name of a row's first cell. */
const nameOf = (cell: string) => /^`([^`]+)`$/.exec(cell)?.[1];

describe("docs/options.md and docs/retries.md: streamChat's defaults", () => {
  const plan = planCall({ baseURL: "https://api.example.com/v1", body: {} });
  const target = plan.targets[0]!;
  const actual: Record<string, unknown> = {
    protocol: target.protocol.name,
    maxRetries: target.maxRetries,
    retry: target.backoff,
    timeouts: { ...target.timeouts, totalMs: plan.totalMs },
    maxEventBytes: plan.maxEventBytes,
    onPartial: plan.onPartial,
    fallbacks: plan.targets.slice(1),
  };

  test.each(Object.keys(actual))("options.md: %s", (name) => {
    const row = table(doc("docs/options.md"), "Option").find((cells) => nameOf(cells[0]!) === name);
    expect(row, `docs/options.md has no row for ${name}`).toBeDefined();
    expect(valueOf(row![1]!)).toEqual(actual[name]);
  });

  test("options.md: retryBudget is none by default", () => {
    const row = table(doc("docs/options.md"), "Option").find((cells) =>
      cells[0] === "`retryBudget`"
    );
    expect(row?.[1]).toBe("none");
    expect(plan.budget).toBeUndefined();
  });

  test("retries.md: the timeouts table", () => {
    const rows = table(doc("docs/retries.md"), "Timer");
    const timeouts = actual.timeouts as Record<string, number>;
    expect(rows.map((cells) => nameOf(cells[0]!))).toEqual(
      Object.keys(timeouts).map((key) => `timeouts.${key}`),
    );
    for (const [cell, text] of rows) {
      expect(valueOf(text!), cell).toBe(timeouts[nameOf(cell!)!.slice("timeouts.".length)]);
    }
  });
});

describe("docs/relay.md: createRelay's defaults and the bindings'", () => {
  const resolved = resolveRelayOptions({
    upstreams: [{ baseURL: "https://api.example.com/v1" }],
  }) as unknown as Record<string, unknown>;
  const relayDoc = doc("docs/relay.md");

  // Rows whose default is not a value (`the demo model`, `the client's`, `createRetryBudget()`).
  const NOT_A_VALUE = [
    "upstreams",
    "keys",
    "fetch",
    "forwardHeaders",
    "models",
    "streams",
    "retryBudget",
    "health",
    "limits",
  ];

  test("every createRelay option is in the table, and each stated default is the one applied", () => {
    const rows = table(relayDoc, "`createRelay` option");
    const names = rows.flatMap((cells) => [...cells[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]));
    expect(names.sort()).toEqual(Object.keys(resolved).sort());
    const checked = rows.filter((cells) => !NOT_A_VALUE.includes(nameOf(cells[0]!) ?? ""))
      .filter((cells) => nameOf(cells[0]!) !== undefined);
    expect(checked.length).toBeGreaterThanOrEqual(8);
    for (const [cell, text] of checked) {
      expect(valueOf(text!), `docs/relay.md: ${cell}`).toEqual(resolved[nameOf(cell!)!]);
    }
  });

  const BINDINGS: Record<string, string> = {
    KEEPALIVE_MS: "keepAliveMs",
    RESUME_TTL_MS: "resumeTtlMs",
    MAX_STREAM_BYTES: "maxStreamBytes",
    MAX_STREAM_READERS: "maxStreamReaders",
    COOLDOWN_FAILURES: "cooldownFailures",
    COOLDOWN_MS: "cooldownMs",
    HEADERS_TIMEOUT_MS: "timeouts.headersMs",
    FIRST_EVENT_TIMEOUT_MS: "timeouts.firstEventMs",
    IDLE_TIMEOUT_MS: "timeouts.idleMs",
    RESUME_UNREAD_MS: "resumeUnreadMs",
  };
  /** An option by its dotted path (`timeouts.idleMs`). */
  const at = (options: object, path: string): unknown =>
    path.split(".").reduce<unknown>(
      (value, key) => (value as Record<string, unknown> | undefined)?.[key],
      options,
    );

  test.each(Object.entries(BINDINGS))(
    "binding %s: read as %s, its stated default",
    (binding, name) => {
      const row = table(relayDoc, "Binding").find((cells) => nameOf(cells[0]!) === binding);
      expect(row, `docs/relay.md has no row for ${binding}`).toBeDefined();
      const stated = /\(default (\d+)/.exec(row![2]!);
      expect(stated, `the row of ${binding} states no default`).not.toBeNull();
      expect(Number(stated![1])).toBe(at(resolved, name));
      expect(at(relayOptionsFromEnv({ [binding]: "7" }), name)).toBe(7);
    },
  );
});
