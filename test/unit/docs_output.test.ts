// The two-turn agent examples in docs/output.md, extracted and run as written (with `stopstream`
// mapped to this repository) against real recorded exchanges served over loopback: turn 1 asks
// for a tool, turn 2 answers. The second request must carry the model's own turn exactly as the
// provider sent it (signed thinking, encrypted reasoning, phased messages), and the tool result.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startReplayServer } from "../support/replay_server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const doc = readFileSync(`${root}docs/output.md`, "utf8");
const dir = `${root}.tmp/docs-output/`;

/** The ```ts block after `heading`, importing this repository instead of the package. */
function example(heading: string): string {
  const at = doc.indexOf(heading);
  if (at === -1) throw new Error(`docs/output.md has no heading ${heading}`);
  const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(at))![1]!;
  return block.replace(`from "stopstream"`, `from "../../src/index.ts"`);
}

function recording(name: string): string {
  return readFileSync(new URL(`../recorded/${name}`, import.meta.url), "utf8");
}

/** The JSON of each `data:` event of a recording. */
// deno-lint-ignore no-explicit-any
function dataOf(name: string): Array<Record<string, any>> {
  return recording(name).split("\n").filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)));
}

type Ask = (
  baseURL: string,
  apiKey: string,
  prompt: string,
  tools: Record<string, { description: string; parameters: object; run(input: object): string }>,
) => Promise<string>;

async function load(name: string, heading: string, exported: string): Promise<Ask> {
  writeFileSync(`${dir}${name}.ts`, example(heading));
  const module = await import(`${dir}${name}.ts`) as Record<string, Ask>;
  return module[exported]!;
}

async function converse(
  turns: [string, string],
  ask: Ask,
  prompt: string,
  tool: string,
  answer: string,
) {
  const encoder = new TextEncoder();
  const server = await startReplayServer((n) => [encoder.encode(recording(turns[n - 1]!))]);
  const ran: object[] = [];
  try {
    const tools = {
      [tool]: {
        description: "",
        parameters: { type: "object", properties: {} },
        run: (input: object) => (ran.push(input), answer),
      },
    };
    const text = await ask(`${server.url}/v1`, "sk-test", prompt, tools);
    return { text, ran, sent: server.requests.map((r) => JSON.parse(r.body)) };
  } finally {
    await server.close();
  }
}

beforeAll(() => mkdirSync(dir, { recursive: true }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("anthropic: the signed thinking and tool_use go back as Claude sent them", async () => {
  const ask = await load("anthropic", "### Anthropic", "askClaude");
  const { text, ran, sent } = await converse(
    ["anthropic/agent_1_thinking_tool.sse", "anthropic/agent_2_answer.sse"],
    ask,
    "Use the fixed_version tool. Then tell me the version and make one short joke about it.",
    "fixed_version",
    "0.32a0",
  );
  expect(text).toMatch(/^The version is \*\*0\.32a0\*\*\./);
  expect(ran).toEqual([{}]);
  expect(sent).toHaveLength(2);
  const events = dataOf("anthropic/agent_1_thinking_tool.sse");
  const thinking = events.filter((e) => e.delta?.type === "thinking_delta").map((e) =>
    e.delta.thinking
  )
    .join("");
  const signature = events.find((e) => e.delta?.type === "signature_delta")!.delta.signature;
  expect(sent[1].messages.slice(1)).toEqual([
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking, signature },
        {
          type: "tool_use",
          id: "toolu_01825dXWLSoJwCst1qTsiWdb",
          name: "fixed_version",
          input: {},
          caller: { type: "direct" },
        },
      ],
    },
    {
      role: "user",
      content: [{
        type: "tool_result",
        tool_use_id: "toolu_01825dXWLSoJwCst1qTsiWdb",
        content: "0.32a0",
      }],
    },
  ]);
});

test("openai-responses: every output item (encrypted reasoning, commentary, call) goes back", async () => {
  const ask = await load("responses", "### OpenAI Responses", "askResponses");
  const { text, ran, sent } = await converse(
    ["responses/agent_1_phase_call.sse", "responses/agent_2_phase_answer.sse"],
    ask,
    "What is the capital of PotatoLand?",
    "get_capital",
    "Potato City",
  );
  expect(text).toBe("The capital of PotatoLand is **Potato City**.");
  expect(ran).toEqual([{ country: "PotatoLand" }]);
  // The items exactly as the recording's `output_item.done` events carry them.
  const items = dataOf("responses/agent_1_phase_call.sse")
    .filter((e) => e.type === "response.output_item.done").map((e) => e.item);
  expect(items.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"]);
  expect(sent[1].store).toBe(false);
  expect(sent[1].input.slice(1)).toEqual([
    ...items,
    {
      type: "function_call_output",
      call_id: "call_LabG58Uhrq9kZvR52BYKjToD",
      output: "Potato City",
    },
  ]);
});

test("openai-chat: the assistant message goes back in OpenAI's shape", async () => {
  const ask = await load("chat", "### OpenAI-compatible", "askChat");
  const { text, ran, sent } = await converse(
    ["chat/agent_1_tool_call.sse", "chat/agent_2_answer.sse"],
    ask,
    "What is the capital of the UK? Use the tool, then answer.",
    "get_capital",
    "London",
  );
  expect(text).toBe("The capital of the UK is London.");
  expect(ran).toEqual([{ country: "UK" }]);
  // What the recorded client itself sent on its second request.
  expect(sent[1].messages.slice(1)).toEqual([
    {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_ZR5UUuTt3pf61kjwAJIYdVMj",
        type: "function",
        function: { name: "get_capital", arguments: '{"country":"UK"}' },
      }],
    },
    { role: "tool", tool_call_id: "call_ZR5UUuTt3pf61kjwAJIYdVMj", content: "London" },
  ]);
});

test("the examples type-check against the public API", () => {
  const checked = `${root}.tmp/docs-output-types/`;
  rmSync(checked, { recursive: true, force: true });
  mkdirSync(checked, { recursive: true });
  for (const heading of ["### Anthropic", "### OpenAI Responses", "### OpenAI-compatible"]) {
    const name = heading.replace(/\W+/g, "_");
    writeFileSync(
      `${checked}${name}.ts`,
      example(heading).replace("../../src/index.ts", "stopstream"),
    );
  }
  writeFileSync(
    `${checked}tsconfig.json`,
    JSON.stringify({
      extends: "../../tsconfig.json",
      compilerOptions: {
        noEmit: true,
        types: [],
        baseUrl: "../..",
        paths: { stopstream: ["mod.ts"] },
      },
      include: ["./*.ts"],
    }),
  );
  const tsc = spawnSync(
    process.execPath,
    [`${root}node_modules/typescript/bin/tsc`, "-p", checked],
    {
      encoding: "utf8",
    },
  );
  rmSync(checked, { recursive: true, force: true });
  expect(tsc.stdout + tsc.stderr).toBe("");
  expect(tsc.status).toBe(0);
}, 60_000);
