// Every code example in README.md and docs/ runs, in the runtime it is written for, against
// the demo model (or a recorded stream of the real provider) on a loopback server: Node and
// Deno programs as processes, Worker modules in workerd, pages in Chromium, shell commands in
// bash against the relay Worker. An example that throws, exits non-zero or hangs fails. Blocks
// that are not programs are listed, with the reason, in fragments.ts; see examples.ts for how a
// block says which runtime it is for.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hasChromium, launchChromium } from "../support/chromium.ts";
import { type NodeServer, startNodeServer } from "../support/node_server.ts";
import { ensureBuilt } from "../unit/cli_helpers.ts";
import { ROOT } from "./bundle.ts";
import { collectExamples, type Example, statedCommands } from "./examples.ts";
import { chatText, createExampleUpstream, substituteURLs } from "./example_upstream.ts";
import { runPageExample } from "./run_browser.ts";
import {
  EXAMPLE_KEYS,
  type Finished,
  runDenoExample,
  runNodeExample,
  runScriptAsWritten,
} from "./run_process.ts";
import { type ServerRuntime, startServerExample } from "./run_server.ts";
import { runShellCommand, shellCommands } from "./run_shell.ts";
import { runWorkerExample, startRelay } from "./run_workerd.ts";

/** How long one example (one shell command) may take before it counts as hung. */
const LIMIT_MS = 30_000;
const RELAY_KEY = "example-relay-key";

const { examples, fragments, problems } = collectExamples(ROOT);
const upstream = createExampleUpstream();
let server: NodeServer;
let relay: { url: string; stop(): Promise<void> } | undefined;
let browser: Browser | undefined;

const usesRelay = (example: Example): boolean => example.source.includes("127.0.0.1:8787");

/**
 * What examples say they print, in their `// …` comments, as patterns their output must match
 * (keyed by document and heading): an example whose comment promises output it no longer gives
 * fails, not only one that throws.
 */
const PRINTS: Record<string, RegExp[]> = {
  "docs/relay.md#Progress comments": [
    /^: retry attempt=2 delay_ms=\d+ reason=503 t=\d+$/m,
    /^: retry attempt=3 delay_ms=\d+ reason=429 retry_after_ms=1000 t=\d+$/m,
    /^: open attempt=3 status=200 t=\d+$/m,
    /^: upstream index=0 attempts=3$/m,
  ],
  "docs/relay.md#The demo model in your own app": [
    /^200 demo\n/m,
    /^503 attempt 1, then 200$/m,
  ],
  "docs/relay.md#Stall timeouts": [
    /^: retry attempt=2 delay_ms=\d+ reason=timeout phase=first-event timeout_ms=1500 t=\d+$/m,
    /^true true$/m,
  ],
  "docs/relay.md#Anthropic Messages and the Responses API in": [
    /^200 You said: "Hi"$/m,
    /^completed You said: "Hi"$/m,
  ],
  "docs/relay.md#Which upstream answered": [
    /^x-stopstream-attempts: 1$/m,
    /^: upstream index=0 attempts=2$/m,
  ],
  "docs/relay.md#Following a stream with EventSource": [/^You said: "Hi"\./m],
  "docs/relay.md#Resumable streams": [
    /read up to event 3, then the connection dropped/,
    /^id: 4\n[\s\S]*^id: 5\n[\s\S]*^id: 6\n/m,
    /status: 'cancelled'[\s\S]*cancelled: true/,
  ],
};
const printsOf = (example: Example) => PRINTS[`${example.doc}#${example.heading}`] ?? [];

beforeAll(async () => {
  // JavaScript examples import the built package, as its users do.
  await ensureBuilt();
  server = await startNodeServer(upstream.handler);
  if (examples.some(usesRelay)) relay = await startRelay();
});
afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  await server?.close();
});

function prepared(example: Example, source = example.source): string {
  return substituteURLs(source, {
    upstream: server.url,
    relay: relay?.url ?? "http://relay.not-started",
    id: example.id,
  });
}

const HINT = "An example must run as written (imports, keys from the environment); a block that " +
  "is not a program goes in test/docs/fragments.ts, with the reason.";

/** A process that ended badly, as a readable failure message. */
function describeFailure(what: string, run: Finished): string {
  const how = run.hung ? `hung (killed after ${LIMIT_MS} ms)` : `exited ${run.code ?? run.signal}`;
  return `${what} ${how}\n--- stdout ---\n${run.stdout.slice(-2000)}\n--- stderr ---\n${
    run.stderr.slice(-2000)
  }\n${HINT}`;
}

/**
 * The example called the loopback upstream (or the relay), so the URLs were really replaced:
 * more requests than `before` reached its route.
 */
/** The demo answers in-process: such an example calls no upstream. */
const usesDemo = (example: Example): boolean => example.source.includes('"stopstream/demo"');

function expectItCalledTheUpstream(example: Example, run?: Finished, before = 0): void {
  if (usesRelay(example) || usesDemo(example)) {
    expect(run?.stdout ?? "", "printed nothing").not.toBe("");
  } else {
    expect(
      upstream.traffic(example.id).requests - before,
      "no request reached the loopback upstream: does the example name a provider base URL " +
        "that PROVIDER_BASE_URL (example_upstream.ts) knows?",
    ).toBeGreaterThan(0);
  }
}

test("every code block of README.md and docs/ is an example that runs, or a listed fragment", () => {
  expect(problems).toEqual([]);
  expect(examples.length).toBeGreaterThan(10);
  // The list of fragments stays short: every other block runs. Before raising this bound,
  // try to make the block a program that runs.
  expect(fragments.length).toBeLessThanOrEqual(8);
  // Each claim of PRINTS belongs to exactly one Node example.
  for (const key of Object.keys(PRINTS)) {
    const owners = examples.filter((e) => e.runtime === "node" && `${e.doc}#${e.heading}` === key);
    expect(owners.length, `PRINTS["${key}"]`).toBe(1);
  }
});

test("the README's Node quick starts are JavaScript that Node 20 runs as written, by a stated command", () => {
  // TypeScript would need a build step or a runner the reader may not have (`node file.ts` fails
  // on Node 20); the stated command is the one the test runs.
  const quickStarts = examples.filter((e) =>
    e.doc === "README.md" && e.heading.startsWith("Quick start") && e.runtime === "node"
  );
  expect(quickStarts.length).toBeGreaterThan(0);
  for (const e of quickStarts) {
    expect({ at: `README.md:${e.line}`, commands: statedCommands(e.source) }).toEqual({
      at: `README.md:${e.line}`,
      commands: expect.arrayContaining([expect.objectContaining({ runtime: "node" })]),
    });
    expect(e.info).toBe("js");
  }
});

/**
 * A self-hosted relay example (docs/relay.md) as a caller finds it: it streams from the
 * upstream behind its key, lists the models it names, and says what it has no storage for.
 */
async function expectSelfHostedRelay(example: Example, origin: string): Promise<void> {
  const auth = { authorization: `Bearer ${RELAY_KEY}` };
  const before = upstream.traffic(example.id).requests;
  const chat = (headers: Record<string, string>) =>
    fetch(`${origin}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({
        model: "any",
        stream: true,
        messages: [{ role: "user", content: "Hi" }],
      }),
    });
  const streamed = await chat(auth);
  expect(streamed.status).toBe(200);
  expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/);
  expect(await streamed.text()).toMatch(/^data: \[DONE\]$/m);
  expect(upstream.traffic(example.id).requests - before).toBe(1);
  expect((await chat({})).status, "without the relay key").toBe(401);
  const resumable = await chat({ ...auth, "x-stopstream-resumable": "true" });
  expect(resumable.status).toBe(400);
  expect(((await resumable.json()) as { error: { code: string } }).error.code).toBe(
    "resumable_unavailable",
  );
  const stream = await fetch(`${origin}/v1/streams/${"0".repeat(32)}`, { headers: auth });
  expect(stream.status).toBe(404);
  expect(((await stream.json()) as { error: { code: string } }).error.code).toBe(
    "stream_not_found",
  );
  const models = await fetch(`${origin}/v1/models`, { headers: auth });
  const ids = ((await models.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
  expect(ids.length).toBeGreaterThan(0);
  for (const id of ids) expect(example.source).toContain(`"${id}"`);
  expect(upstream.traffic(example.id).requests - before, "requests to the upstream").toBe(1);
}

for (const example of examples) {
  const name = `${example.doc}:${example.line} (${example.heading}) in ${example.runtime}`;

  if (example.runtime.endsWith("-server")) {
    test(name, async () => {
      const runtime = example.runtime.slice(0, -"-server".length) as ServerRuntime;
      const server = await startServerExample(
        example.id,
        prepared(example),
        runtime,
        { RELAY_KEY },
        LIMIT_MS,
      );
      try {
        await expectSelfHostedRelay(example, server.origin);
      } finally {
        const run = await server.stop();
        // Nothing but Deno's note that it type-checks the file.
        const stderr = run.stderr.split("\n").filter((line) =>
          line !== "" && !/^Check /.test(line)
        );
        expect(stderr, "what the server printed on stderr").toEqual([]);
      }
    }, LIMIT_MS + 30_000);
  }

  if (example.runtime === "node" && example.info.startsWith("js")) {
    const stated = statedCommands(example.source);
    for (const command of stated.length > 0 ? stated : [undefined]) {
      test(`${name}${command ? `: ${command.command}` : ""}`, async () => {
        const before = upstream.traffic(example.id).requests;
        const run = await runScriptAsWritten(example.id, prepared(example), command, LIMIT_MS);
        expect(run.hung || run.code !== 0, describeFailure("the example", run)).toBe(false);
        expectItCalledTheUpstream(example, run, before);
        for (const printed of printsOf(example)) expect(run.stdout).toMatch(printed);
      }, LIMIT_MS + 30_000);
    }
  } else if (example.runtime === "node" || example.runtime === "deno") {
    test(name, async () => {
      const run = example.runtime === "node"
        ? await runNodeExample(example.id, prepared(example), LIMIT_MS)
        : await runDenoExample(example.id, prepared(example), LIMIT_MS);
      expect(run.hung || run.code !== 0, describeFailure("the example", run)).toBe(false);
      expectItCalledTheUpstream(example, run);
      for (const printed of printsOf(example)) expect(run.stdout).toMatch(printed);
    }, LIMIT_MS + 30_000);
  }

  if (example.runtime === "worker") {
    test(name, async () => {
      const answer = await runWorkerExample(
        prepared(example),
        {
          path: "/v1/chat/completions",
          init: {
            method: "POST",
            headers: {
              "content-type": "application/json",
              authorization: `Bearer ${RELAY_KEY}`,
              // Ignored unless the Worker has resumable streams (then the answer must be one).
              "x-stopstream-resumable": "true",
            },
            body: JSON.stringify({
              model: "gpt-4o-mini",
              stream: true,
              messages: [{ role: "user", content: "Hi" }],
            }),
          },
        },
        { ...EXAMPLE_KEYS, RELAY_KEY },
        LIMIT_MS,
      );
      expect(answer.hung, "the Worker's response never ended").toBe(false);
      expect(answer.status, answer.body).toBe(200);
      if (/\bRelayStream\b/.test(example.source)) expect(answer.streamId).toMatch(/^[0-9a-f]{32}$/);
      const sent = upstream.traffic(example.id);
      expect(sent.requests, "requests to the upstream").toBeGreaterThan(0);
      if (answer.contentType.startsWith("text/event-stream")) {
        expect(answer.body).toContain("data: [DONE]");
      } else {
        // The whole answer, not an empty body that workerd ended because the Worker hung.
        expect(answer.body).toBe(sent.text);
        expect(answer.body).not.toBe("");
      }
    }, LIMIT_MS + 30_000);
  }

  if (example.runtime === "browser") {
    test.skipIf(!hasChromium())(name, async () => {
      browser ??= await launchChromium();
      const page = await runPageExample(
        browser,
        `${server.url}${upstream.servePage(example.id, prepared(example))}`,
        usesRelay(example)
          ? async (page) => {
            const answer = await page.waitForResponse(
              (response) => response.url().endsWith("/v1/chat/completions"),
              { timeout: LIMIT_MS },
            );
            return chatText(await answer.text());
          }
          : async () => (await upstream.completed(example.id)).text,
        LIMIT_MS,
      );
      expect(page.errors).toEqual([]);
      expect(page.hung, `the page showed ${JSON.stringify(page.output)}`).toBe(false);
      expect(page.output).not.toBe("");
    }, LIMIT_MS * 2 + 30_000);
  }

  if (example.runtime === "shell") {
    describe(name, () => {
      const { exports, commands } = shellCommands(example.source);
      test("has commands", () => expect(commands.length).toBeGreaterThan(0));
      for (const command of commands) {
        test(command.command, async () => {
          const run = await runShellCommand(
            { ...command, command: prepared(example, command.command) },
            exports.map((line) => prepared(example, line)),
            { upstream: server.url, id: example.id },
            LIMIT_MS,
          );
          expect(
            !run.hung && run.code === command.expectedStatus,
            describeFailure(
              `\`${command.command}\` (expected status ${command.expectedStatus})`,
              run,
            ),
          ).toBe(true);
        }, LIMIT_MS + 30_000);
      }
    });
  }
}
