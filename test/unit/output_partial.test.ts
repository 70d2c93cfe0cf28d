// `output` of an answer cut off mid-stream (PartialStreamError.partial): the blocks and items
// that arrived, in the provider's shape, the open one holding what it had so far. Built from
// real recordings (test/recorded/) cut after a given event.
import { expect, test } from "vitest";
import { isPartialStreamError, type ProtocolName, streamChat } from "../../src/index.ts";
import { answering, recordedEvents } from "../support/recorded.ts";

/** The recording's events up to (not including) the first one containing `cutBefore`. */
function cut(name: string, cutBefore: string): string {
  const events = recordedEvents(name);
  const at = events.findIndex((e) => e.includes(cutBefore));
  if (at < 1) throw new Error(`${name} has no event with ${cutBefore} after its first`);
  return events.slice(0, at).join("");
}

async function partialOf(protocol: ProtocolName, body: string) {
  const error = await streamChat({
    baseURL: "https://recorded.test/v1",
    protocol,
    body: { model: "recorded", messages: [] },
    maxRetries: 0,
    fetch: answering(body),
  }).result.then(() => undefined, (e: unknown) => e);
  if (!isPartialStreamError(error)) throw new Error(`expected a PartialStreamError: ${error}`);
  return error.partial;
}

test("responses: items done are whole, the call cut mid-arguments has what arrived", async () => {
  // Cut after the second of seven argument deltas (`{"` and `country`).
  const body = cut("responses/agent_1_phase_call.sse", '"sequence_number":25');
  const partial = await partialOf("openai-responses", body);
  expect(partial.toolCalls).toMatchObject([{ arguments: '{"country' }]);
  expect(partial.output).toMatchObject([
    { type: "reasoning", encrypted_content: expect.stringMatching(/^gAAAAA/) },
    { type: "message", phase: "commentary", status: "completed" },
    { type: "function_call", call_id: "call_LabG58Uhrq9kZvR52BYKjToD", arguments: '{"country' },
  ]);
});

test("responses: a message cut before its done event has the text that arrived", async () => {
  const body = cut("responses/agent_2_phase_answer.sse", '"response.output_text.done"');
  const partial = await partialOf("openai-responses", body);
  expect(partial.content).toBe("The capital of PotatoLand is **Potato City**.");
  expect(partial.output).toEqual([expect.objectContaining({
    type: "message",
    phase: "final_answer",
    content: [{ type: "output_text", text: partial.content, annotations: [] }],
  })]);
});

test("anthropic: a text block cut mid-way holds the text so far, the thinking before it whole", async () => {
  // Cut after the block's first delta ("Following"), before " the standard …".
  const body = cut("anthropic/code_execution.sse", '"text":" the standard');
  const partial = await partialOf("anthropic-messages", body);
  expect(partial.output).toMatchObject({
    role: "assistant",
    content: [
      { type: "thinking", thinking: "Let me calculate this mathematical expression." },
      { type: "text", text: "I'll calculate that expression for you right away!" },
      {
        type: "server_tool_use",
        input: { command: 'echo "65465-6544 * 65464-6+1.02255" | bc -l' },
      },
      { type: "bash_code_execution_tool_result" },
      { type: "text", text: "Following" },
    ],
  });
});

test("anthropic: a tool input cut mid-JSON keeps the input its block started with", async () => {
  // Cut after the input's first piece (`{"com`), which is no JSON yet; the text before it had
  // reached the caller, so the answer is partial.
  const body = cut("anthropic/code_execution.sse", 'mand\\": \\"ec');
  const partial = await partialOf("anthropic-messages", body);
  const blocks = (partial.output as { content: Record<string, unknown>[] }).content;
  expect(blocks.map((b) => b.type)).toEqual(["thinking", "text", "server_tool_use"]);
  expect(blocks[2]).toEqual({
    type: "server_tool_use",
    id: "srvtoolu_01MwXaweAHve88x6s3Fc8x6Q",
    name: "bash_code_execution",
    input: {},
  });
});
