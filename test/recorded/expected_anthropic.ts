/**
 * Expected results of the Anthropic recordings, written by reading each recording (see
 * SOURCES.md for where it comes from). Long strings are checked by their ends and length.
 *
 * @module
 */

import type { Expected } from "./expected.ts";
import { kinds, list, text } from "./matchers.ts";

const PTC_CALLER = {
  type: "code_execution_20250825",
  tool_id: "srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK",
};

/** Anthropic recordings → what the call must give. */
export const ANTHROPIC: Record<string, Expected> = {
  "anthropic/text.sse": {
    result: {
      id: "msg_01QC4g3HwBThD4BaNtBckFDJ",
      model: "claude-sonnet-4-5-20250929",
      content:
        "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?",
      reasoning: "",
      toolCalls: [],
      finishReason: "stop",
      providerFinishReason: "end_turn",
      usage: { inputTokens: 12, outputTokens: 30, totalTokens: 42, cachedInputTokens: 0 },
      output: {
        role: "assistant",
        content: [{ type: "text", text: text("Hello! I'm doing well", "help you with?", 108) }],
      },
    },
    absent: ["citations", "reasoningDetails"],
  },
  "anthropic/ptc_1_code_execution.sse": {
    result: {
      id: "msg_01ERcBqAvLTHWQDk9c9qJLWC",
      content: text("I'll help you simulate this game", "until one player wins 3 rounds.", 157),
      // The server tool (code_execution) runs at Anthropic: only rollDie is the caller's to run.
      toolCalls: [{
        id: "toolu_019jKkXz4jAdwHweHBw92CVY",
        name: "rollDie",
        arguments: '{"player":"player1"}',
      }],
      finishReason: "tool_calls",
      providerFinishReason: "tool_use",
      usage: { inputTokens: 3369, outputTokens: 725 },
      output: {
        role: "assistant",
        content: [
          { type: "text" },
          {
            type: "server_tool_use",
            id: "srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK",
            name: "code_execution",
            caller: { type: "direct" },
            input: { code: text("\nimport asyncio\n", "asyncio.run(main())\n", 1902) },
          },
          {
            type: "tool_use",
            id: "toolu_019jKkXz4jAdwHweHBw92CVY",
            input: { player: "player1" },
            caller: PTC_CALLER,
          },
        ],
      },
    },
  },
  "anthropic/ptc_2_whole_message.sse": {
    // Defect 1: the whole message is inside message_start, then message_stop.
    result: {
      id: "msg_01KSVw3xmXbMNJPNMt46BC5W",
      model: "claude-sonnet-4-5-20250929",
      content: "",
      toolCalls: [{
        index: 0,
        id: "toolu_015dGLMbwBKv1ZRQr6KdJzeH",
        name: "rollDie",
        arguments: '{"player":"player2"}',
      }],
      finishReason: "tool_calls",
      providerFinishReason: "tool_use",
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      output: {
        role: "assistant",
        content: [{
          type: "tool_use",
          id: "toolu_015dGLMbwBKv1ZRQr6KdJzeH",
          name: "rollDie",
          input: { player: "player2" },
          caller: PTC_CALLER,
        }],
      },
    },
  },
  "anthropic/ptc_15_result.sse": {
    result: {
      id: "msg_01CfmDducyrt61n4Q7QS8VFK",
      content: text(
        "## Game Results\n\n**Player 2 wins the game 3-2!** 🏆",
        "against Player 1's 2.",
        676,
      ),
      toolCalls: [],
      finishReason: "stop",
      providerFinishReason: "end_turn",
      usage: { inputTokens: 4551, outputTokens: 197 },
      output: {
        content: [
          {
            type: "code_execution_tool_result",
            tool_use_id: "srvtoolu_01MzSrFWsmzBdcoQkGWLyRjK",
            content: { type: "code_execution_result" },
          },
          { type: "text" },
        ],
      },
    },
  },
  "anthropic/web_search_citations.sse": {
    result: {
      id: "msg_01LHpEgU4KbfgXGVi3UtHQY1",
      // Cited and uncited runs of one paragraph are separate text blocks: joined as they are.
      content: text(
        "Based on my search results, here are the key tech news",
        "years since their first international retail expansion.",
        2402,
      ),
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 15665, outputTokens: 795 },
      citations: list(14, {
        url:
          "https://www.apple.com/newsroom/2025/09/the-all-new-apple-ginza-opens-this-friday-september-26-in-tokyo/",
        title: "The all-new Apple Ginza opens this Friday, September 26, in Tokyo - Apple",
        citedText:
          "Apple today announced the grand reopening of Apple Ginza on Friday, September 26, located in the vibrant Ginza district.",
        // The cited span is the text block the citation is attached to (block 3).
        start: 116,
        end: 375,
        source: {
          type: "web_search_result_location",
          encrypted_index: text("Eo8BCioICBgC", "YBA==", 200),
        },
      }),
      output: {
        content: kinds(
          "server_tool_use",
          "web_search_tool_result",
          ...Array<string>(19).fill("text"),
        ),
      },
    },
  },
  "anthropic/web_search_pydantic.sse": {
    result: {
      id: "msg_019ifek4sTha46JcCb2z2yPp",
      // Two searches, each followed by text: the second text starts a new paragraph.
      content: text(
        "Let me search for more specific breaking news stories to get clearer headlines.\n\nBased on the search results",
        "disruptions affecting North America.",
        1794,
      ),
      finishReason: "stop",
      usage: { inputTokens: 31772, outputTokens: 644 },
      citations: list(9, {
        url: "https://www.npr.org/sections/news/",
        title: "News: U.S. and World News Headlines : NPR",
      }),
      output: {
        content: kinds(
          "server_tool_use",
          "web_search_tool_result",
          "text",
          "server_tool_use",
          "web_search_tool_result",
          ...Array<string>(17).fill("text"),
        ),
      },
    },
  },
  "anthropic/tool_no_args.sse": {
    result: {
      content: "I'll update the issue list for you.",
      toolCalls: [{
        id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP",
        name: "updateIssueList",
        arguments: "{}",
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 565, outputTokens: 48 },
      output: {
        content: [
          { type: "text", text: "I'll update the issue list for you." },
          { type: "tool_use", id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", input: {} },
        ],
      },
    },
  },
  "anthropic/compaction.sse": {
    result: {
      id: "msg_01WJn2D9FrjipEZ9u51siJHC",
      model: "claude-opus-4-6",
      content: text(
        "Based on the conversation history, you asked me to",
        "cover another section?",
        8518,
      ),
      finishReason: "stop",
      usage: { inputTokens: 612, outputTokens: 2819 },
      output: {
        content: [
          {
            type: "compaction",
            content: text(
              "## Summary of Conversation\n\n### Task Con",
              "question in the series.",
              2192,
            ),
          },
          { type: "text" },
        ],
      },
    },
  },
  "anthropic/compaction_emoji.sse": {
    result: {
      id: "msg_011CduoCRono7pFKoTWpPAia",
      content: "Hello! 👋",
      finishReason: "stop",
      usage: { inputTokens: 181, outputTokens: 8 },
      output: {
        content: [
          {
            type: "compaction",
            content: text("The user provided a very long context", "Say hello to the user.", 299),
          },
          { type: "text", text: "Hello! 👋" },
        ],
      },
    },
  },
  "anthropic/mcp.sse": {
    result: {
      content:
        "The echo tool responded back with: **hello world**\n\nIt simply echoed back the exact message that was sent to it.",
      // mcp_tool_use runs at Anthropic (the MCP connector): not the caller's to run.
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 1250, outputTokens: 83 },
      output: {
        content: [
          {
            type: "mcp_tool_use",
            id: "mcptoolu_017CuqaJcXe5ZHJjaz3KS1AT",
            name: "echo",
            server_name: "echo",
            input: { message: "hello world" },
          },
          {
            type: "mcp_tool_result",
            tool_use_id: "mcptoolu_017CuqaJcXe5ZHJjaz3KS1AT",
            is_error: false,
            content: [{ type: "text", text: "Tool echo: hello world" }],
          },
          { type: "text" },
        ],
      },
    },
  },
  "anthropic/redacted_thinking.sse": {
    result: {
      id: "msg_018XZkwvj9asBiffg3fXt88s",
      content: text(
        "I notice that you've sent what appears",
        "a legitimate task or question?",
        359,
      ),
      reasoning: "",
      finishReason: "stop",
      usage: { inputTokens: 92, outputTokens: 189 },
      reasoningDetails: [
        { type: "redacted_thinking", data: text("EqkECkYIBxgCKk", "45vnBd4ewJ/hgB", 744) },
        { type: "redacted_thinking", data: text("EtgBCkYIBxgCKk", "V3yRYdZ1J0GAE=", 296) },
      ],
      output: {
        content: [
          { type: "redacted_thinking", data: text("EqkECkYIBxgCKk", "45vnBd4ewJ/hgB", 744) },
          { type: "redacted_thinking", data: text("EtgBCkYIBxgCKk", "V3yRYdZ1J0GAE=", 296) },
          { type: "text" },
        ],
      },
    },
  },
  "anthropic/thinking_signature.sse": {
    result: {
      id: "msg_01ALwQ87pTS7hH1PjSdC9wJD",
      content: text(
        "Here are the basic steps for safely crossing the s",
        "speed when crossing streets.",
        1021,
      ),
      reasoning: text(
        "This is a straightforward question about pedestria",
        "help prevent accidents.",
        202,
      ),
      finishReason: "stop",
      usage: { inputTokens: 43, outputTokens: 282 },
      reasoningDetails: [{
        type: "thinking",
        thinking: text("This is a straightforward", "prevent accidents.", 202),
        signature: text("EvMCCkYICxgCKk", "DvP/UhjfQYAQ==", 504),
      }],
      output: {
        content: [
          {
            type: "thinking",
            thinking: text("This is a straightforward", "prevent accidents.", 202),
            signature: text("EvMCCkYICxgCKk", "DvP/UhjfQYAQ==", 504),
          },
          { type: "text", text: text("Here are the basic steps", "crossing streets.", 1021) },
        ],
      },
    },
  },
  "anthropic/code_execution.sse": {
    result: {
      id: "msg_01Js8aWE7YbmiaUPneGiCskE",
      model: "claude-sonnet-4-6",
      // Text before and after the code execution are two paragraphs (a blank line between).
      content: text(
        "I'll calculate that expression for you right away!\n\nFollowing the standard",
        "### ✅ Final Answer: **-428,330,955.97745**",
        503,
      ),
      reasoning: "Let me calculate this mathematical expression.",
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 4714, outputTokens: 304 },
      output: {
        content: [
          { type: "thinking", signature: text("EusBClsIDRgCKk", "dDomrp4RcinBgB", 320) },
          { type: "text", text: "I'll calculate that expression for you right away!" },
          {
            type: "server_tool_use",
            name: "bash_code_execution",
            input: { command: 'echo "65465-6544 * 65464-6+1.02255" | bc -l' },
          },
          {
            type: "bash_code_execution_tool_result",
            tool_use_id: "srvtoolu_01MwXaweAHve88x6s3Fc8x6Q",
          },
          { type: "text", text: text("Following the standard", "**-428,330,955.97745**", 451) },
        ],
      },
    },
  },
  "anthropic/web_fetch.sse": {
    result: {
      content:
        "Pydantic AI is a Python agent framework designed to help you quickly, confidently, and painlessly build production grade applications and workflows with Generative AI.",
      reasoning: text(
        "The user wants me to fetch the content",
        "get the content from this URL.",
        194,
      ),
      finishReason: "stop",
      usage: { inputTokens: 7244, outputTokens: 153 },
      output: {
        content: [
          { type: "thinking", signature: text("EusCCkYICRgCKk", "4Cj8D8XFZbGAE=", 492) },
          { type: "server_tool_use", name: "web_fetch", input: { url: "https://ai.pydantic.dev" } },
          { type: "web_fetch_tool_result", tool_use_id: "srvtoolu_018ADaxdJjyZ8HXtF3sTBPNk" },
          { type: "text" },
        ],
      },
    },
  },
  "anthropic/mcp_servers.sse": {
    result: {
      id: "msg_01Xf6SmUVY1mDrSwFc5RsY3n",
      content: text(
        "**Pydantic-AI** is a framework for building Genera",
        "provider-specific complexities.",
        806,
      ),
      reasoning: text(
        "The user is asking about the pydantic/pydantic-ai ",
        "about this repository.",
        192,
      ),
      toolCalls: [],
      finishReason: "stop",
      usage: { inputTokens: 3042, outputTokens: 354 },
      output: {
        content: [
          { type: "thinking", signature: text("EuoCCkYICBgCKk", "tDkQ5dw/IYAQ==", 492) },
          {
            type: "mcp_tool_use",
            server_name: "deepwiki",
            input: {
              repoName: "pydantic/pydantic-ai",
              question: "What is this repository about? What are its main features and purpose?",
            },
          },
          { type: "mcp_tool_result", tool_use_id: "mcptoolu_01FZmJ5UspaX5BB9uU339UT1" },
          { type: "text" },
        ],
      },
    },
  },
  "anthropic/agent_1_thinking_tool.sse": {
    result: {
      id: "msg_01JdU4xqNHXL9QCFWkwCDKGr",
      model: "claude-haiku-4-5-20251001",
      content: "",
      reasoning: text("The user wants me to:\n1", "see what version it returns.", 180),
      toolCalls: [{ id: "toolu_01825dXWLSoJwCst1qTsiWdb", name: "fixed_version", arguments: "{}" }],
      finishReason: "tool_calls",
      usage: { inputTokens: 598, outputTokens: 92 },
      output: {
        role: "assistant",
        content: [
          {
            type: "thinking",
            thinking: text("The user wants me to:\n1. Use", "see what version it returns.", 180),
            signature: text("EoQDCm0IDhgCKk", "hhANWRjSBwUxgB", 524),
          },
          {
            type: "tool_use",
            id: "toolu_01825dXWLSoJwCst1qTsiWdb",
            name: "fixed_version",
            input: {},
            caller: { type: "direct" },
          },
        ],
      },
    },
  },
  "anthropic/agent_2_answer.sse": {
    result: {
      id: "msg_01Qb3MMmP6RUjBckfsEVddrQ",
      content: text("The version is **0.32a0**.", "so plenty of room to grow!)", 278),
      finishReason: "stop",
      usage: { inputTokens: 707, outputTokens: 89 },
    },
  },
  "anthropic/parallel_empty_tools.sse": {
    result: {
      id: "msg_015S7FCRZ7rzjcyuJgzDu35c",
      content:
        "I'll help you generate two names for a pet pelican using the pelican name generator tool.",
      toolCalls: [
        {
          index: 0,
          id: "toolu_017ngBid8gmdReTeroVSZf7r",
          name: "pelican_name_generator",
          arguments: "{}",
        },
        {
          index: 1,
          id: "toolu_01FJrHJrmnfEqR6NxkQ3yhpu",
          name: "pelican_name_generator",
          arguments: "{}",
        },
      ],
      finishReason: "tool_calls",
      // message_delta sent only output_tokens: the input count is message_start's.
      usage: { inputTokens: 310, outputTokens: 82, totalTokens: 392 },
      output: { content: kinds("text", "tool_use", "tool_use") },
    },
  },
  "anthropic/duplicate_message_start.sse": {
    // The same message_start twice is harmless.
    result: {
      id: "msg_dup",
      content: "Hello, World!",
      finishReason: "stop",
      usage: { inputTokens: 17, outputTokens: 227 },
      output: { content: [{ type: "text", text: "Hello, World!" }] },
    },
  },
  "anthropic/spliced_message_start.sse": {
    // Defect 2: another message's start while one is open is never spliced into it.
    error: { name: "PartialStreamError", cause: "StreamProtocolError" },
    partial: { reasoning: "I will call the tool.", toolCalls: [{ id: "toolu_first" }] },
  },
  "anthropic/tool_search_bm25.sse": {
    // A server tool search (server_tool_use, run by Anthropic) and its result, then a tool_use
    // of the caller's: only that one is a tool call.
    result: {
      id: "msg_011bqgzot9grwdetCByUmXRP",
      content: text(
        "I'll search for a weather-related tool to help you",
        "for San Francisco.",
        179,
      ),
      toolCalls: [{
        id: "toolu_019nRrfqqXcU5NPTUSYfEMAY",
        name: "get_weather",
        arguments: '{"location": "San Francisco, CA"}',
      }],
      finishReason: "tool_calls",
      usage: { inputTokens: 1630, outputTokens: 158 },
      output: {
        content: kinds("text", "server_tool_use", "tool_search_tool_result", "text", "tool_use"),
      },
    },
    mine: ["toolu_019nRrfqqXcU5NPTUSYfEMAY"],
  },
  "anthropic/bash_code_execution.sse": {
    // Code execution 2025-08-25: text editor and bash server tools with their results.
    result: {
      id: "msg_01LEsrXVCLpf7xHaFdFTZNEJ",
      content: text("I'll create a Python script to calculate Fibonacci", "13, 21, 34, ...", 799),
      toolCalls: [],
      finishReason: "stop",
      providerFinishReason: "end_turn",
      usage: { inputTokens: 8050, outputTokens: 771 },
      output: {
        content: kinds(
          "text",
          "server_tool_use",
          "text_editor_code_execution_tool_result",
          "text",
          "server_tool_use",
          "bash_code_execution_tool_result",
          "text",
        ),
      },
    },
  },
};
