// The two-turn agent examples of docs/output.md, run as written (the provider URL pointed at a
// loopback server, `stopstream` at this repository) against real recorded exchanges: turn 1
// asks for a tool, turn 2 answers. The second request must carry the model's own turn exactly as
// the provider sent it (signed thinking, encrypted reasoning, phased messages) and the tool
// result. (test/docs/ runs the same examples against its demo upstream.)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, test, vi } from "vitest";
import { PROVIDER_BASE_URL } from "../docs/example_upstream.ts";
import { recording } from "../support/recorded.ts";
import { startReplayServer } from "../support/replay_server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const doc = readFileSync(`${root}docs/output.md`, "utf8");
const dir = `${root}.tmp/docs-output/`;

/** The JSON of each `data:` event of a recording. */
// deno-lint-ignore no-explicit-any
function dataOf(name: string): Array<Record<string, any>> {
  return recording(name).split("\n").filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)));
}

/**
 * Runs the ```ts block after `heading` against a server answering its n-th request with
 * `turns[n - 1]`; returns what it printed and the request bodies the server received.
 */
async function run(heading: string, turns: [string, string]) {
  const at = doc.indexOf(heading);
  if (at === -1) throw new Error(`docs/output.md has no heading ${heading}`);
  const block = /```ts\n([\s\S]*?)```/.exec(doc.slice(at))![1]!;
  const encoder = new TextEncoder();
  const server = await startReplayServer((n) => [encoder.encode(recording(turns[n - 1]!))]);
  const file = `${dir}${heading.replace(/\W+/g, "_")}.ts`;
  writeFileSync(
    file,
    block.replace(`from "stopstream"`, `from "../../src/index.ts"`)
      .replace(PROVIDER_BASE_URL, `${server.url}/v1`),
  );
  const log = vi.spyOn(console, "log").mockImplementation(() => {});
  try {
    await import(file);
    return {
      printed: log.mock.calls.map((args) => args.join(" ")),
      sent: server.requests.map((r) => JSON.parse(r.body)),
    };
  } finally {
    log.mockRestore();
    await server.close();
  }
}

beforeAll(() => mkdirSync(dir, { recursive: true }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("anthropic: the signed thinking and tool_use go back as Claude sent them", async () => {
  const { printed, sent } = await run("### Anthropic", [
    "anthropic/agent_1_thinking_tool.sse",
    "anthropic/agent_2_answer.sse",
  ]);
  expect(printed).toHaveLength(1);
  expect(printed[0]).toMatch(/^The version is \*\*0\.32a0\*\*\./);
  expect(sent).toHaveLength(2);
  const events = dataOf("anthropic/agent_1_thinking_tool.sse");
  const thinking = events.filter((e) => e.delta?.type === "thinking_delta")
    .map((e) => e.delta.thinking).join("");
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
        // The recorded model called a tool the example does not have: it is told so.
        content: "no tool named fixed_version",
      }],
    },
  ]);
});

test("openai-responses: every output item (encrypted reasoning, commentary, call) goes back", async () => {
  const { printed, sent } = await run("### OpenAI Responses", [
    "responses/agent_1_phase_call.sse",
    "responses/agent_2_phase_answer.sse",
  ]);
  expect(printed).toEqual(["The capital of PotatoLand is **Potato City**."]);
  expect(sent).toHaveLength(2);
  // The items exactly as the recording's `output_item.done` events carry them.
  const items = dataOf("responses/agent_1_phase_call.sse")
    .filter((e) => e.type === "response.output_item.done").map((e) => e.item);
  expect(items.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"]);
  expect(items[0].encrypted_content).toMatch(/^gAAAAA/);
  expect(sent[1].store).toBe(false);
  expect(sent[1].input.slice(1)).toEqual([
    ...items,
    {
      type: "function_call_output",
      call_id: "call_LabG58Uhrq9kZvR52BYKjToD",
      output: "no tool named get_capital",
    },
  ]);
});

test("openai-responses: only the caller's call is answered; OpenAI's tool search goes back as items", async () => {
  const { printed, sent } = await run("### OpenAI Responses with a hosted tool search", [
    "responses/tool_search_server.sse",
    "responses/reasoning_encrypted_4_answer.sse",
  ]);
  expect(printed).toEqual(["The final result is **570**."]);
  expect(sent).toHaveLength(2);
  const items = dataOf("responses/tool_search_server.sse")
    .filter((e) => e.type === "response.output_item.done").map((e) => e.item);
  expect(items.map((item) => item.type)).toEqual([
    "tool_search_call",
    "tool_search_output",
    "function_call",
  ]);
  // One output, for the function call: none for the search, which OpenAI ran.
  expect(sent[1].input.slice(1)).toEqual([
    ...items,
    {
      type: "function_call_output",
      call_id: "call_pddfxhfOx4gY56zn4vIIEbFp",
      output: "San Francisco, CA: 14 °C, fog",
    },
  ]);
});

test("openai-chat: the assistant message goes back as the recorded client sent it", async () => {
  const { printed, sent } = await run("### OpenAI-compatible", [
    "chat/agent_1_tool_call.sse",
    "chat/agent_2_answer.sse",
  ]);
  expect(printed).toEqual(["The capital of the UK is London."]);
  expect(sent).toHaveLength(2);
  // The assistant message is what the recorded client itself sent on its second request.
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
    {
      role: "tool",
      tool_call_id: "call_ZR5UUuTt3pf61kjwAJIYdVMj",
      content: "no tool named get_capital",
    },
  ]);
});
