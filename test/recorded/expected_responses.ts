/**
 * Expected results of the OpenAI Responses recordings, written by reading each recording (see
 * SOURCES.md for where it comes from). Long strings are checked by their ends and length.
 *
 * @module
 */

import type { Expected } from "./expected.ts";
import { kinds, list, text } from "./matchers.ts";

/** Responses recordings → what the call must give. */
export const RESPONSES: Record<string, Expected> = {
  "responses/reasoning_encrypted_1_call.sse": {
    result: {
      id: "resp_01830d662ab3856501693c321345c88190b0de00f3b9975691",
      model: "gpt-5.1-codex-max",
      content: "",
      reasoning: text(
        "**Calculating step-by-step using calcula",
        "reporting the final product.",
        163,
      ),
      toolCalls: [{
        id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
        name: "calculator",
        arguments: '{"a":12,"b":7,"op":"add"}',
      }],
      finishReason: "tool_calls",
      providerFinishReason: "completed",
      usage: { inputTokens: 134, outputTokens: 28, totalTokens: 162, cachedInputTokens: 0 },
      // What an agent with `store: false` sends back: the reasoning item whole.
      output: [
        {
          type: "reasoning",
          id: "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9",
          summary: [{ type: "summary_text", text: text("**Calculating", "final product.", 163) }],
          encrypted_content: text("gAAAAABpPD", "0wz4uQ==", 1060),
        },
        {
          type: "function_call",
          id: "fc_01830d662ab3856501693c32151234819091cfca267e98cc5f",
          call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn",
          name: "calculator",
          arguments: '{"a":12,"b":7,"op":"add"}',
          status: "completed",
        },
      ],
    },
  },
  "responses/reasoning_encrypted_4_answer.sse": {
    result: {
      id: "resp_01830d662ab3856501693c3217ba4c8190a3ddf6c839d4f12a",
      content: "The final result is **570**.",
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 299, outputTokens: 12, totalTokens: 311 },
      output: [{
        type: "message",
        content: [{ type: "output_text", text: "The final result is **570**." }],
      }],
    },
    absent: ["citations"],
  },
  "responses/apply_patch.sse": {
    result: {
      id: "resp_0372d86dfc1762fe00692741f339a08190bce9b78ee2079295",
      content: "",
      toolCalls: [{
        id: "call_kA46f91ZwocQyMCKyyZqRyC5",
        name: "",
        type: "apply_patch",
        arguments: JSON.stringify({
          type: "create_file",
          diff:
            "+## Shopping Checklist\n+\n+- [ ] Milk\n+- [ ] Bread\n+- [ ] Eggs\n+- [ ] Fresh fruit\n+- [ ] Coffee\n",
          path: "shopping-checklist.md",
        }),
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 642, outputTokens: 67 },
      output: [{
        type: "apply_patch_call",
        call_id: "call_kA46f91ZwocQyMCKyyZqRyC5",
        status: "completed",
      }],
    },
  },
  "responses/shell_call.sse": {
    // The only output is a shell call: a tool call, not an empty `stop` (defect 3).
    result: {
      content: "",
      toolCalls: [{
        id: "call_pbxjNs1tMJUahLZKAS9qLtvw",
        name: "",
        type: "shell",
        arguments: '{"commands":["ls -a ~/Desktop"],"max_output_length":8912,"timeout_ms":null}',
      }],
      finishReason: "tool_calls",
      output: [{ type: "shell_call", id: "sh_0434d6d64b12b08900692f639c9f0481959c30e03ca0bb2ef8" }],
    },
  },
  "responses/local_shell_call.sse": {
    result: {
      toolCalls: [{
        id: "call_h3nm8hUG0KO9tVNuRACkL1ri",
        name: "",
        type: "local_shell",
        arguments: '{"type":"exec","command":["ls","-a","~"],"env":{}}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 407, outputTokens: 151, reasoningTokens: 128 },
      output: kinds("reasoning", "local_shell_call"),
    },
  },
  "responses/mcp_approval.sse": {
    result: {
      toolCalls: [{
        // An approval request has no call_id: its id is what the approval response names.
        id: "mcpr_04a97b4fce127879006949a83ac9308195a7f7b69ea82e91fe",
        name: "create_short_url",
        type: "mcp_approval_request",
        arguments:
          '{"alias":"","description":"Shortened link for ai-sdk.dev","max_clicks":100,"password":"","url":"https://ai-sdk.dev/"}',
      }],
      finishReason: "tool_calls",
      output: [
        {
          type: "mcp_list_tools",
          server_label: "zip1",
          tools: list(4, { name: "create_short_url" }),
        },
        { type: "reasoning" },
        { type: "mcp_approval_request", server_label: "zip1" },
      ],
    },
  },
  "responses/web_search_annotations.sse": {
    result: {
      content: text(
        "I checked today’s tech headlines (today = December",
        "pull out more details now?",
        3645,
      ),
      toolCalls: [],
      finishReason: "stop",
      usage: {
        inputTokens: 31073,
        outputTokens: 4416,
        cachedInputTokens: 3712,
        reasoningTokens: 3712,
      },
      citations: list(12, {
        url:
          "https://techcrunch.com/2025/12/05/petco-confirms-security-lapse-exposed-customers-personal-data/?utm_source=openai",
        title: "Petco confirms security lapse exposed customers’ personal data | TechCrunch",
        start: 277,
        end: 411,
        source: { type: "url_citation" },
      }),
      output: kinds(
        ...Array<string[]>(6).fill(["reasoning", "web_search_call"]).flat(),
        "reasoning",
        "message",
      ),
    },
  },
  "responses/file_search.sse": {
    result: {
      content: text(
        "According to the document, an embedding model conv",
        "other models or NLP tasks .",
        383,
      ),
      citations: list(2, {
        title: "ai.pdf",
        start: 154,
        end: 154,
        source: { type: "file_citation", file_id: "file-Ebzhf8H4DPGPr9pUhr7n7v" },
      }),
      output: kinds("reasoning", "file_search_call", "reasoning", "message"),
    },
  },
  "responses/error.sse": {
    error: { name: "UpstreamStreamError", retryable: false },
  },
  "responses/programmatic_tool_calling.sse": {
    result: {
      toolCalls: [{
        id: "call_VgDSZztLociNcutQZWkC2fmL",
        name: "getInventory",
        arguments: '{"sku":"sku_123"}',
      }],
      finishReason: "tool_calls",
      // `program` is an item kind stopstream does not know: passed through as it arrived.
      output: [
        { type: "reasoning", encrypted_content: text("gAAAAABqYU", "ZsSpdMb0", 1164) },
        { type: "program", call_id: "call_voPdoCqf8APY4DMpam3bdmxq" },
        {
          type: "function_call",
          caller: { type: "program", caller_id: "call_voPdoCqf8APY4DMpam3bdmxq" },
        },
      ],
    },
  },
  "responses/code_interpreter.sse": {
    result: {
      content: text(
        "Here’s a simulation of rolling two fair six-sided ",
        "(JSON, Excel, etc.).",
        596,
      ),
      toolCalls: [],
      finishReason: "stop",
      usage: {
        inputTokens: 6047,
        outputTokens: 1623,
        cachedInputTokens: 2944,
        reasoningTokens: 1408,
      },
      citations: [{
        title: "roll2dice_sums_10000.csv",
        start: 423,
        end: 465,
        source: {
          type: "container_file_citation",
          file_id: "cfile_68c2e7084ab48191a67824aa1f4c90f1",
        },
      }],
      output: kinds(
        ...Array<string[]>(3).fill(["reasoning", "code_interpreter_call"]).flat(),
        "reasoning",
        "message",
      ),
    },
  },
  "responses/azure_text.sse": {
    result: {
      id: "resp_02ce8deeb6197db200698c5196e9588197a572bbea62d38cd1",
      model: "gpt-5.1",
      content: "Hello",
      finishReason: "stop",
      usage: { inputTokens: 11, outputTokens: 11, totalTokens: 22 },
    },
  },
  "responses/lmstudio_tool_call.sse": {
    result: {
      model: "zai-org/glm-4.7-flash",
      content: "I'll get the current weather information for San Francisco for you.",
      reasoning: text(
        "The user is asking for the weather in San Francisco",
        "make the function call.",
        242,
      ),
      toolCalls: [{
        id: "call_2025306790300011",
        name: "weather",
        arguments: '{"location":"San Francisco"}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 182, outputTokens: 61, reasoningTokens: 48 },
      output: kinds("reasoning", "message", "function_call"),
    },
  },
  "responses/agent_1_phase_call.sse": {
    result: {
      id: "resp_0fabc13af1ee0049006a691dfdab8881a1a75f2db7ff78cb83",
      model: "gpt-5.5-2026-04-23",
      content: "I’ll check the capital lookup tool for “PotatoLand.”",
      toolCalls: [{
        id: "call_LabG58Uhrq9kZvR52BYKjToD",
        name: "get_capital",
        arguments: '{"country":"PotatoLand"}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 63, outputTokens: 69, totalTokens: 132, reasoningTokens: 26 },
      output: [
        {
          type: "reasoning",
          id: "rs_0fabc13af1ee0049006a691dfe60b081a1baa444d3cf19afba",
          encrypted_content: text("gAAAAABqaR", "cqGK8PU=", 1080),
        },
        { type: "message", phase: "commentary", status: "completed" },
        { type: "function_call", call_id: "call_LabG58Uhrq9kZvR52BYKjToD" },
      ],
    },
  },
  "responses/agent_2_phase_answer.sse": {
    result: {
      content: "The capital of PotatoLand is **Potato City**.",
      finishReason: "stop",
      output: [{ type: "message", phase: "final_answer" }],
    },
  },
  "responses/phase_commentary_final.sse": {
    // Defect 4: two message items are never glued; each keeps its phase. (Abridged at the
    // source: only a few text deltas remain, while each `done` item is whole.)
    result: {
      id: "resp_0a63f40a2632b74300699f8818e5648196a8fa657ae8091421",
      model: "gpt-5.3-codex",
      content: "Got it\n\nHere are a few **AI",
      finishReason: "stop",
      usage: { inputTokens: 7112, outputTokens: 463, cachedInputTokens: 3072, reasoningTokens: 64 },
      output: [
        {
          type: "message",
          phase: "commentary",
          content: [{
            type: "output_text",
            text: text("Got it — I’ll quickly check", "key items with links.", 153),
          }],
        },
        {
          type: "message",
          phase: "final_answer",
          content: [{
            type: "output_text",
            text: text("Here are a few **AI headlines", "morning brief with timestamps.", 1485),
          }],
        },
      ],
    },
  },
  "responses/web_search_pydantic.sse": {
    result: {
      content: text(
        "San Francisco weather today (Tuesday, September 16",
        "for the cooler evening. ",
        212,
      ),
      finishReason: "stop",
      usage: {
        inputTokens: 9463,
        outputTokens: 582,
        cachedInputTokens: 8320,
        reasoningTokens: 512,
      },
      output: [
        { type: "reasoning", encrypted_content: text("gAAAAABoyd", "3cj9mBs=", 2616) },
        { type: "web_search_call", action: { query: "weather: San Francisco, CA" } },
        { type: "reasoning", encrypted_content: text("gAAAAABoyd", "3sC9lUQ=", 2552) },
        { type: "message" },
      ],
    },
    absent: ["citations"],
  },
  "responses/mcp_call.sse": {
    result: {
      content: text(
        "pydantic-ai is a Python “agent” framework that bri",
        "scaffold for AI agent development.",
        687,
      ),
      // A hosted MCP call ran at OpenAI: nothing for the caller to run.
      toolCalls: [],
      finishReason: "stop",
      output: [
        { type: "mcp_list_tools", server_label: "deepwiki" },
        { type: "reasoning", encrypted_content: text("gAAAAABo-q", "WoEfQw==", 1828) },
        { type: "mcp_call", name: "ask_question", server_label: "deepwiki" },
        { type: "reasoning", encrypted_content: text("gAAAAABo-q", "K0lpmlF7", 1740) },
        { type: "message" },
      ],
    },
  },
  "responses/reasoning_answer.sse": {
    result: {
      content: "Paris.",
      reasoning: "",
      finishReason: "stop",
      usage: { inputTokens: 13, outputTokens: 59, totalTokens: 72 },
      output: [{ type: "reasoning", encrypted_content: text("gAAAAABqX6", "ZpzT8ZU=", 1272) }, {
        type: "message",
      }],
    },
  },
  "responses/openrouter_raw_cot.sse": {
    result: {
      id: "gen-1764265411-Fu1iEX7h5MRWiL79lb94",
      model: "openai/gpt-oss-20b",
      content: "4",
      reasoning: text('The user asks: "What is 2+2?"', "Just answer 4.", 85),
      finishReason: "stop",
      usage: { inputTokens: 78, outputTokens: 37, reasoningTokens: 22 },
      // The message item was done before the reasoning item: output keeps output_index order.
      output: [{ type: "reasoning", id: "rs_tmp_2kbe7x16sax" }, {
        type: "message",
        id: "msg_tmp_8cjof4f6zpw",
      }],
    },
  },
  "responses/deepseek_function_tool.sse": {
    result: {
      id: "1235b7ba-fdc9-4a1c-bfe4-6137c207baf3",
      model: "deepseek-v4-flash",
      reasoning: "The user asks about temperature in Tokyo. I'll call the tool.",
      toolCalls: [{
        id: "call_00_xjY8Z2BvSlzgEmmw0DtH0464",
        name: "get_temperature",
        arguments: '{"city": "Tokyo"}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 366, outputTokens: 59, cachedInputTokens: 256, reasoningTokens: 14 },
      output: kinds("reasoning", "function_call"),
    },
  },
  "responses/custom_tool_reproduction.sse": {
    result: {
      toolCalls: [{
        id: "call_g8yRNFvYwhYY5Eb3rGIAxf8l",
        name: "setHtml",
        type: "custom",
        arguments:
          "<main><h1>Streaming custom tool input</h1><p>This must arrive progressively.</p></main>",
      }],
      finishReason: "tool_calls",
      output: [{ type: "custom_tool_call", call_id: "call_g8yRNFvYwhYY5Eb3rGIAxf8l" }],
    },
  },
  "responses/custom_tool_handwritten.sse": {
    result: {
      toolCalls: [{
        id: "call_custom_sql_001",
        name: "write_sql",
        type: "custom",
        arguments: "SELECT * FROM users WHERE age > 25",
      }],
      finishReason: "tool_calls",
    },
  },
};
