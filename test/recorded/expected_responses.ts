/**
 * Expected results of the OpenAI Responses recordings, written by reading each recording (see
 * SOURCES.md for where it comes from). Long strings are checked by their ends and length.
 *
 * @module
 */

import type { Expected } from "./expected.ts";
import { expect } from "vitest";
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
  "responses/xai_x_search.sse": {
    // xAI runs its X search tools itself and streams them as custom tool calls: the answer is
    // complete, the caller runs nothing (issue 30, case 1). The response declares no custom tool.
    result: {
      id: "b7b464ea-cc85-d44a-0f2f-1f7320e703c3",
      model: "grok-4-fast-reasoning",
      content: text(
        "### Latest Videos and Images from xAI on X (as of ",
        "views, let me know!",
        6304,
      ),
      toolCalls: [
        {
          id: "xs_call_24148162",
          name: "x_keyword_search",
          type: "custom",
          arguments: '{"query":"from:xai filter:media","limit":20,"mode":"Latest"}',
          providerExecuted: true,
        },
        {
          id: "xs_call_14963218",
          name: "view_x_video",
          type: "custom",
          arguments: text('{"video_url":"https://video.twimg.com/', 'kRkbodV96jk4PmbG.mp4"}', 111),
          providerExecuted: true,
        },
      ],
      finishReason: "stop",
      providerFinishReason: "completed",
      usage: {
        inputTokens: 27236,
        outputTokens: 3077,
        cachedInputTokens: 4585,
        reasoningTokens: 1091,
      },
      citations: list(20, { url: "https://x.com/i/status/1990530503129391571" }),
      output: kinds(
        "custom_tool_call",
        "custom_tool_call",
        ...Array<string>(4).fill("web_search_call"),
        "message",
      ),
    },
    mine: [],
  },
  "responses/xai_web_search.sse": {
    // xAI's web search: a web_search_call with a name and an empty call_id, run by xAI.
    result: {
      model: "grok-4-fast-reasoning",
      content: text("xAI is an American artificial intelligence company", "check x.ai.", 1228),
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 1875, outputTokens: 695, cachedInputTokens: 1578 },
      citations: list(5, { url: "https://en.wikipedia.org/wiki/XAI_%28company%29" }),
      output: kinds("web_search_call", "message"),
    },
  },
  "responses/xai_reasoning_store_false.sse": {
    result: {
      id: "0b824fe9-3250-2588-0bbf-0810402fc822",
      model: "grok-code-fast-1",
      reasoning: text('First, the question is: "What is specifically nota', "for clarity.", 754),
      content: text("### Overview of Sonoran Cuisine", "approachable meals.", 2786),
      finishReason: "stop",
      usage: { inputTokens: 216, outputTokens: 831, reasoningTokens: 253, cachedInputTokens: 192 },
      output: [
        {
          type: "reasoning",
          id: "rs_0b824fe9-3250-2588-0bbf-0810402fc822",
          encrypted_content: expect.any(String),
        },
        { type: "message" },
      ],
    },
  },
  "responses/shell_hosted.sse": {
    // OpenAI's hosted shell: shell_call items in a container (`environment`), each followed by
    // its shell_call_output: OpenAI ran them, the answer is complete (issue 30, case 1).
    result: {
      id: "resp_049350089f7281c400698f717727d08191a446ae1621ed9503",
      content: text("Build a STOP large signal STOP on the STOP beach", "and open beach).", 951),
      toolCalls: [
        {
          id: "call_ckIythV1s1RcnbGV4F34THGN",
          name: "",
          type: "shell",
          arguments: text(
            '{"commands":["ls -R /home/oai/skills/island-rescue',
            '"timeout_ms":null}',
            129,
          ),
          providerExecuted: true,
        },
        {
          id: "call_Ud8yNtRknjWh2OA6COEutgOK",
          type: "shell",
          arguments: text(`{"commands":["sed -n '1,200p'`, '"timeout_ms":null}', 148),
          providerExecuted: true,
        },
      ],
      finishReason: "stop",
      usage: {
        inputTokens: 1501,
        outputTokens: 314,
        cachedInputTokens: 1024,
        reasoningTokens: 100,
      },
      output: kinds(
        "shell_call",
        "shell_call_output",
        "shell_call",
        "shell_call_output",
        "message",
      ),
    },
    mine: [],
  },
  "responses/tool_search_client.sse": {
    // A tool search the caller runs (`execution: "client"`): a call of its own, answered with a
    // tool_search_output; it used to be dropped, ending the turn empty (issue 30, case 2).
    result: {
      id: "resp_05ed6c8b322854d8006a024b5204d881968b26a4e643969b0f",
      model: "gpt-5.4-2026-03-05",
      content: "",
      toolCalls: [{
        id: "call_HoZLyVrNA5gX9RcfrRNI733g",
        name: "",
        type: "tool_search",
        arguments: JSON.stringify({
          queries: [
            "exchange rate currency converter USD EUR current",
            "foreign exchange USD to EUR live rate",
          ],
        }),
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 234, outputTokens: 36 },
      output: [{ type: "tool_search_call", execution: "client", status: "completed" }],
    },
    mine: ["call_HoZLyVrNA5gX9RcfrRNI733g"],
  },
  "responses/tool_search_client_new_id.sse": {
    // The call_id at output_item.done (and in response.completed) is not the one at added: the
    // call takes the final one, which the tool_search_output must name.
    result: {
      id: "resp_05147bbe356953b60069ab67352c908196a63357757792b203",
      toolCalls: [{
        id: "call_RWTIIVfxsJW9fecsg6fy23Dy",
        name: "",
        type: "tool_search",
        arguments:
          '{"goal":"Find a tool that can provide current weather information for San Francisco."}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 65, outputTokens: 31, totalTokens: 96 },
    },
    mine: ["call_RWTIIVfxsJW9fecsg6fy23Dy"],
  },
  "responses/tool_search_server.sse": {
    // A tool search OpenAI ran (`execution: "server"`, no call_id), then a call of the caller's
    // to the tool it found: only that one is the caller's.
    result: {
      id: "resp_08a14073c7135dc10069aa68621de481908b2fc660fb4fc0af",
      toolCalls: [
        {
          id: "tsc_08a14073c7135dc10069aa686296c88190bff77ad137e79d59",
          type: "tool_search",
          arguments: '{"paths":["get_weather"]}',
          providerExecuted: true,
        },
        {
          id: "call_pddfxhfOx4gY56zn4vIIEbFp",
          name: "get_weather",
          arguments: '{"location":"San Francisco, CA","unit":"fahrenheit"}',
        },
      ],
      finishReason: "tool_calls",
      usage: { inputTokens: 640, outputTokens: 46, reasoningTokens: 20 },
      output: kinds("tool_search_call", "tool_search_output", "function_call"),
    },
    mine: ["call_pddfxhfOx4gY56zn4vIIEbFp"],
  },
  "responses/mcp_list_tools_final.sse": {
    // Three mcp_list_tools items; only the last gets output_item.done, the others are whole
    // only in response.completed: output holds them whole (issue 30, case 3).
    result: {
      id: "resp_034c5e93e2fa45ad006a2c2b74c2e4819dafbd93fcd1b49697",
      content: text("Here are the available tools from each connected M", "content\n\n---", 398),
      toolCalls: [],
      finishReason: "stop",
      output: [
        {
          type: "mcp_list_tools",
          server_label: "deepwiki",
          tools: list(3, { name: "read_wiki_structure" }),
        },
        {
          type: "mcp_list_tools",
          server_label: "microsoft_learn",
          tools: list(3, { name: "microsoft_docs_search" }),
        },
        {
          type: "mcp_list_tools",
          server_label: "gitmcp",
          tools: list(4, { name: "fetch_pydantic_ai_documentation" }),
        },
        { type: "message" },
      ],
    },
  },
  "responses/compaction.sse": {
    result: {
      id: "resp_067b756b377f97050069e16f9b54a08190b78ecc1e9f974922",
      content: text(
        "Deep in the cool hush of a mountain cave",
        "heart of the mountain itself.",
        1750,
      ),
      finishReason: "stop",
      usage: { inputTokens: 872, outputTokens: 1254, totalTokens: 2126 },
      output: [
        { type: "message" },
        {
          type: "compaction",
          id: "cmp_067b756b377f97050069e16fa9b8408190ab05934212c434a0",
          encrypted_content: expect.any(String),
        },
      ],
    },
  },
  "responses/background_queued.sse": {
    // Background mode: response.queued before the answer.
    result: {
      id: "resp_0da443d9ee8333600069950a0635d88196b2d9243b08e8cc01",
      model: "gpt-4o-2024-08-06",
      content: "2 + 2 equals 4.",
      finishReason: "stop",
      usage: { inputTokens: 15, outputTokens: 9, totalTokens: 24 },
    },
  },
  "responses/bedrock_reasoning_call.sse": {
    // AWS Bedrock's Responses endpoint: encrypted reasoning, then a call with the id "call_1".
    result: {
      id: "resp_3irkem3mb4qjb6cw3bfrozqwtev62iuhg5ygpmhx2j775j2hft5q",
      model: "openai.gpt-5.6-luna",
      reasoning: "",
      toolCalls: [{ id: "call_1", name: "second_tool", arguments: "{}" }],
      finishReason: "tool_calls",
      usage: { inputTokens: 115, outputTokens: 30, reasoningTokens: 14 },
      output: kinds("reasoning", "function_call"),
    },
    mine: ["call_1"],
  },
  "responses/openrouter_tool_call.sse": {
    // OpenRouter's Responses API: a function call, then `data: [DONE]` after response.completed.
    result: {
      id: "gen-1785882271-2B3yJ6vpOkI3nf9dZb6k",
      model: "openai/gpt-4.1-mini",
      toolCalls: [{ id: "call_faKQ4JI18zZQE2oynAbvwip4", name: "llm_version", arguments: "{}" }],
      finishReason: "tool_calls",
      usage: { inputTokens: 42, outputTokens: 12, totalTokens: 54 },
      output: [{ type: "function_call", id: "fc_tmp_blm40ohabq8" }],
    },
    mine: ["call_faKQ4JI18zZQE2oynAbvwip4"],
  },
  "responses/openrouter_reasoning.sse": {
    // Encrypted reasoning only (no summary text), then the answer.
    result: {
      id: "gen-1785882693-G0Ba9AGVEVeNhHohmw0g",
      model: "openai/gpt-5-nano",
      content: "4",
      reasoning: "",
      finishReason: "stop",
      usage: { inputTokens: 20, outputTokens: 19, totalTokens: 39 },
      output: kinds("reasoning", "message"),
    },
  },
};
